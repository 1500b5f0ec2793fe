/**
 * Use case 1 (paper section 5, "Prompt Engineering"): "random sample a small set of m samples from
 * the training set, then use Q_know(q, k) as the scoring function to select the top n samples to
 * compose the few-shot prompt" (m = 30, n = 8). Each candidate's gold knowledge is scored for its
 * own query on the four intrinsic metrics of Eq. 9 (nothing else enters Q), and the n with the
 * highest Q become the demonstrations of every query's Table 12 prompt (`conner generate
 * --fixed-demos`), best first. The scoring is a resumable run like `conner score`.
 */
import { LlmkbError } from '../../../errors.js';
import { writeFileAtomic } from '../../../io/files.js';
import { toJsonl } from '../../../io/jsonl.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { ScoringChoices } from '../conner-choices.js';
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
  const items: GeneratedKnowledge[] = candidates.map((q) =>
    intrinsicOnly({ ...q, generator: 'reference', setting: 'given', knowledgeDemos: [], knowledge: q.referenceKnowledge, answerDemos: [] }),
  );
  const scored = await scoreKnowledge({ ...options, items, label: options.label ?? 'conner select-demos' });
  const ranked = scored
    .map((r, i) => {
      const { q: quality, missing } = knowledgeQuality(r, options.gamma);
      return { demo: candidates[i]!, quality, missing };
    })
    // Stable: equal quality keeps the seeded sample's order.
    .sort((a, b) => b.quality - a.quality);
  return ranked.slice(0, options.top).map((r, i) => ({
    id: r.demo.id,
    topic: r.demo.topic,
    query: r.demo.query,
    knowledge: r.demo.referenceKnowledge,
    answer: r.demo.goldAnswer,
    quality: r.quality,
    missing: r.missing,
    rank: i + 1,
  }));
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
    {
      id: 'demos-sample',
      kind: 'decision',
      text: `m = ${facts.candidates} candidates drawn from the pool with the run's seed, the top n = ${facts.top} by Q kept (the paper: m = 30, n = 8, from the training set; llmkb takes the pool given, which should not be the file the demonstrations are then used on)`,
    },
    {
      id: 'demos-quality',
      kind: 'decision',
      text: `Q (Eq. 9) of a candidate is that of its gold knowledge for its own query, gamma = (${facts.gamma.join(', ')}) for (fact, rel, coh_para, info) (the paper does not give gamma); only these four metrics are scored`,
    },
    {
      id: 'demos-order',
      kind: 'decision',
      text: "the demonstrations enter every query's Table 12 prompt in the order of Q, best first (the paper does not give the order); `conner generate --fixed-demos` leaves out a demonstration that is the query itself",
    },
  ];
  if (facts.evidence === 'reference') {
    notes.push({
      id: 'demos-self-evidence',
      kind: 'departure',
      text: "factuality of a candidate's gold knowledge is checked against that same gold knowledge (the reference evidence), so it is near 1 for every candidate and hardly ranks them; give --corpus to check it against other evidence, as the paper's retrieval does",
    });
  }
  if (facts.skipped > 0)
    notes.push({ id: 'demos-pool', kind: 'decision', text: `${facts.skipped} pool rows without gold knowledge or gold answer were left out` });
  return notes;
}

export const SELECT_DEMOS_SCHEMA = 'llmkb-conner-select-demos-v1';

type PoolQuery = ConnerQuery & { referenceKnowledge: string; goldAnswer: string };

/** The pool's queries that can be demonstrations (gold knowledge and a gold answer); none is an error naming the pool. */
export function demonstrationPool(pool: string, queries: readonly ConnerQuery[]): PoolQuery[] {
  const usable = queries.filter((q): q is PoolQuery => (q.referenceKnowledge ?? '').trim() !== '' && (q.goldAnswer ?? '').trim() !== '');
  if (usable.length === 0)
    throw new LlmkbError(`${pool}: no query has both gold knowledge and a gold answer`, { hint: 'Demonstrations need "referenceKnowledge" and "goldAnswer".' });
  return usable;
}

/** What a selection did (schema llmkb-conner-select-demos-v1): its parameters, the Q of every kept demonstration and the protocol. */
export interface SelectDemosSummary {
  schema: typeof SELECT_DEMOS_SCHEMA;
  pool: string;
  candidates: number;
  top: number;
  gamma: Gamma;
  seed: number;
  evidence: string;
  choices: ScoringChoices;
  demonstrations: Array<Pick<SelectedDemonstration, 'id' | 'rank' | 'quality' | 'missing'>>;
  protocol: BestOfProtocolNote[];
}

/**
 * Use case 1 as one call (what `llmkb conner select-demos` runs; the command prints): the
 * demonstrations selected from the pool file's queries and the summary document, both written
 * when `write` names the files (the demonstrations as JSONL for `conner generate --fixed-demos`).
 */
export async function selectDemosFromPool(
  pool: string,
  queries: readonly ConnerQuery[],
  options: Omit<ScoreOptions, 'items'> & { candidates: number; top: number; gamma: Gamma; write?: { output: string; summary: string } },
): Promise<{ demonstrations: SelectedDemonstration[]; summary: SelectDemosSummary }> {
  const usable = demonstrationPool(pool, queries);
  const { write, ...selection } = options;
  const demonstrations = await selectDemonstrations(usable, selection);
  const protocol = selectDemosProtocol({
    candidates: options.candidates,
    top: options.top,
    gamma: options.gamma,
    evidence: options.evidence.id,
    skipped: queries.length - usable.length,
  });
  const summary: SelectDemosSummary = {
    schema: SELECT_DEMOS_SCHEMA,
    pool,
    candidates: Math.min(options.candidates, usable.length),
    top: options.top,
    gamma: options.gamma,
    seed: options.seed,
    evidence: options.evidence.id,
    choices: options.choices,
    demonstrations: demonstrations.map((d) => ({ id: d.id, rank: d.rank, quality: d.quality, missing: d.missing })),
    protocol,
  };
  if (write) {
    writeFileAtomic(write.output, toJsonl(demonstrations));
    writeFileAtomic(write.summary, `${JSON.stringify(summary, null, 2)}\n`);
  }
  return { demonstrations, summary };
}
