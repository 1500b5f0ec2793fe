/**
 * Use case 1 (paper section 5, "Prompt Engineering"): sample m candidate demonstrations from a
 * pool (seeded), score each demonstration's gold knowledge for its own query with CONNER, and
 * keep the n with the highest Q_know (Eq. 9) as the few-shot demonstrations (the paper: m = 30,
 * n = 8). The scoring is a resumable run like `conner score`.
 */
import { SeededRandom } from '../../../sampling/seeded-random.js';
import type { Demonstration } from '../generation/conner-prompts.js';
import type { GeneratedKnowledge } from '../generation/generate-knowledge.js';
import type { ConnerQuery } from '../generation/conner-queries.js';
import { scoreKnowledge, type ScoreOptions } from '../scoring/score-knowledge.js';
import { knowledgeQuality, type Gamma } from './knowledge-quality.js';

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
  const items: GeneratedKnowledge[] = candidates.map((q) => ({ ...q, generator: 'reference', setting: 'given', knowledgeDemos: [], knowledge: q.referenceKnowledge, answerDemos: [] }));
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
