/**
 * Use case 1 (paper section 5, "Prompt Engineering"): "random sample a small set of m samples from
 * the training set, then use Q_know(q, k) as the scoring function to select the top n samples to
 * compose the few-shot prompt" (m = 30, n = 8). Each candidate's gold knowledge is scored for its
 * own query on the four intrinsic metrics of Eq. 9 (nothing else enters Q), and the n with the
 * highest Q become the demonstrations of every query's Table 12 prompt (`conner generate
 * --fixed-demos`), best first. The scoring is a resumable run like `conner score`.
 */
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { Demonstration } from '../generation/conner-prompts.js';
import type { GeneratedKnowledge } from '../generation/generate-knowledge.js';
import type { ConnerQuery } from '../generation/conner-queries.js';
import { scoreKnowledge, type ScoreOptions } from '../scoring/score-knowledge.js';
import type { BestOfProtocolNote } from './best-of.js';
import { intrinsicOnly, knowledgeQuality, type Gamma } from './knowledge-quality.js';

export interface SelectedDemonstration extends Demonstration {
  /** Q_know of the demonstration's knowledge (Eq. 9). */
  quality: number;
  missing: string[];
  rank: number;
}

export const DEFAULT_DEMO_CANDIDATES = 30;
export const DEFAULT_DEMO_TOP = 8;

export async function selectDemonstrations(
  pool: ReadonlyArray<ConnerQuery & { referenceKnowledge: string; goldAnswer: string }>,
  options: Omit<ScoreOptions, 'items'> & { candidates: number; top: number; gamma: Gamma },
): Promise<SelectedDemonstration[]> {
  const candidates = SeededRandom.stream(options.seed, 'select-demos').sample(pool, options.candidates);
  const items: GeneratedKnowledge[] = candidates.map((q) => intrinsicOnly({ ...q, generator: 'reference', setting: 'given', knowledgeDemos: [], knowledge: q.referenceKnowledge, answerDemos: [] }));
  const scored = await scoreKnowledge({ ...options, items, label: options.label ?? 'conner select-demos' });
  const ranked = scored
    .map((r, i) => {
      const { q: quality, missing } = knowledgeQuality(r, options.gamma);
      return { demo: candidates[i]!, quality, missing };
    })
    // Stable: equal quality keeps the seeded sample's order.
    .sort((a, b) => b.quality - a.quality);
  return ranked.slice(0, options.top).map((r, i) => ({ id: r.demo.id, topic: r.demo.topic, query: r.demo.query, knowledge: r.demo.referenceKnowledge, answer: r.demo.goldAnswer, quality: r.quality, missing: r.missing, rank: i + 1 }));
}

export interface SelectDemosProtocolFacts {
  candidates: number;
  top: number;
  gamma: Gamma;
  /** The evidence source's id (`reference`: each query's own gold knowledge). */
  evidence: string;
  /** Pool rows left out: no gold knowledge or no gold answer. */
  skipped: number;
}

/** What a demonstration selection did where the paper leaves a choice open or where llmkb departs from it. */
export function selectDemosProtocol(facts: SelectDemosProtocolFacts): BestOfProtocolNote[] {
  const notes: BestOfProtocolNote[] = [
    { id: 'demos-sample', kind: 'decision', text: `m = ${facts.candidates} candidates drawn from the pool with the run's seed, the top n = ${facts.top} by Q kept (the paper: m = 30, n = 8, from the training set; llmkb takes the pool given, which should not be the file the demonstrations are then used on)` },
    { id: 'demos-quality', kind: 'decision', text: `Q (Eq. 9) of a candidate is that of its gold knowledge for its own query, gamma = (${facts.gamma.join(', ')}) for (fact, rel, coh_para, info) (the paper does not give gamma); only these four metrics are scored` },
    { id: 'demos-order', kind: 'decision', text: 'the demonstrations enter every query\'s Table 12 prompt in the order of Q, best first (the paper does not give the order); `conner generate --fixed-demos` leaves out a demonstration that is the query itself' },
  ];
  if (facts.evidence === 'reference') {
    notes.push({ id: 'demos-self-evidence', kind: 'departure', text: "factuality of a candidate's gold knowledge is checked against that same gold knowledge (the reference evidence), so it is near 1 for every candidate and hardly ranks them; give --corpus to check it against other evidence, as the paper's retrieval does" });
  }
  if (facts.skipped > 0) notes.push({ id: 'demos-pool', kind: 'decision', text: `${facts.skipped} pool rows without gold knowledge or gold answer were left out` });
  return notes;
}
