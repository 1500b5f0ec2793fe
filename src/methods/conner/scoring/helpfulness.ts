/**
 * Helpfulness, paper Eq. 6 (first form): S_help = max(0, 1 - L(q, k, a) / ((1/u) sum_i L(q, k_i^-, a))),
 * where L is the cross-entropy of the gold answer `a` (per-token mean over the answer's tokens)
 * given the query and a knowledge text, and k_1^-..k_u^- are u knowledge texts of other queries
 * drawn at random (seeded). The second printed form lacks the 1/u; the method notes follow the
 * first. The answer is scored after the scripts' 8-shot prompt with one shared baseline per data
 * set (./helpfulness-baseline.ts, the default) or after the Table 13 answer template with no
 * demonstrations and u negatives of the same generator (profile `equations`).
 *
 * Per item, the losses and the item's own Eq. 6 value are kept. The table value is taken over the
 * whole set, as the authors' src/helpfulness.py averages each condition's losses over the items
 * (`np.mean(loss_list)`) before the ratio, and the clip comes after it:
 * max(0, 1 - mean_q L(q, k, a) / mean_q L(q, k^-, a)) (../summary/metric-aggregates.ts); Table 16 reports it
 * without the clip.
 */
import { ContextOverflowError } from '../../../errors.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { answerExample } from '../generation/conner-prompts.js';
import type { ConnerQuery } from '../generation/conner-queries.js';
import { meanLogProb, type TokenScorer } from './scorers.js';

export interface Helpfulness {
  /** max(0, 1 - ratio). */
  value: number;
  /** 1 - ratio without the max(0, .) (the paper's Table 16 reports this form). */
  raw: number;
  loss: number;
  baselineLosses: number[];
  /** Ids of the queries whose knowledge served as k_i^-. */
  negatives: string[];
}

/** The u other items whose knowledge is the baseline for `id`: seeded per item, never the item itself. */
export function sampleNegatives(id: string, pool: readonly string[], u: number, seed: number): string[] {
  return SeededRandom.stream(seed, 'helpfulness-negatives', id).sample(
    pool.filter((p) => p !== id),
    u,
  );
}

/**
 * The text before the answer, given a knowledge text: Table 13's template by default. Several
 * prompts (the scripts' prompt with fewer and fewer demonstrations) are tried in order until one
 * fits the scorer's context.
 */
export type AnswerPromptOf = (knowledge: string) => string | readonly string[];

const table13 =
  (q: Pick<ConnerQuery, 'task' | 'topic' | 'query'>): AnswerPromptOf =>
  (knowledge) =>
    answerExample(q.task, q.topic, knowledge, q.query);

/** L(q, k, a): mean negative log-probability per answer token; undefined when no token was scored. */
export async function answerLoss(
  q: Pick<ConnerQuery, 'task' | 'topic' | 'query'>,
  knowledge: string,
  answer: string,
  scorer: TokenScorer,
  promptOf: AnswerPromptOf = table13(q),
): Promise<{ loss: number | undefined; cached: boolean; floored: number }> {
  const prompts = [promptOf(knowledge)].flat();
  let ll: Awaited<ReturnType<TokenScorer['logLikelihood']>> | undefined;
  for (const [i, prompt] of prompts.entries()) {
    try {
      ll = await scorer.logLikelihood(prompt, ` ${answer}`);
      break;
    } catch (error) {
      if (!(error instanceof ContextOverflowError) || i === prompts.length - 1) throw error;
    }
  }
  if (ll === undefined) throw new Error('answerLoss: no prompt');
  const mean = meanLogProb(ll);
  return { loss: mean === undefined ? undefined : -mean, cached: ll.cached, floored: ll.floored };
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Eq. 6 from the losses of one item. */
export function helpfulnessFromLosses(loss: number, baselineLosses: readonly number[]): { value: number; raw: number } {
  const raw = 1 - loss / mean(baselineLosses);
  return { value: Math.max(0, raw), raw };
}

export async function scoreHelpfulness(
  q: Pick<ConnerQuery, 'task' | 'topic' | 'query'>,
  knowledge: string,
  answer: string,
  negatives: ReadonlyArray<{ id: string; knowledge: string }>,
  scorer: TokenScorer,
  promptOf: AnswerPromptOf = table13(q),
): Promise<{ helpfulness: Helpfulness | undefined; cached: boolean; floored: number }> {
  const own = await answerLoss(q, knowledge, answer, scorer, promptOf);
  let cached = own.cached;
  let floored = own.floored;
  const baselineLosses: number[] = [];
  const used: string[] = [];
  for (const n of negatives) {
    const r = await answerLoss(q, n.knowledge, answer, scorer, promptOf);
    cached &&= r.cached;
    floored += r.floored;
    if (r.loss !== undefined) {
      baselineLosses.push(r.loss);
      used.push(n.id);
    }
  }
  if (own.loss === undefined || baselineLosses.length === 0 || !(mean(baselineLosses) > 0)) return { helpfulness: undefined, cached, floored };
  return { helpfulness: { ...helpfulnessFromLosses(own.loss, baselineLosses), loss: own.loss, baselineLosses, negatives: used }, cached, floored };
}
