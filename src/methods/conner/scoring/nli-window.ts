/**
 * Pairs that fit a pair classifier's window. An NQ gold passage runs to ~6.8k characters, more
 * than a RoBERTa-sized window of 512 tokens takes with a sentence beside it. The passage side is
 * cut, never the other: for NLI the premise (evidence), never the hypothesis (the claim checked);
 * for relevance (Eq. 2) the knowledge, never the query. A pair the model refuses as too long is
 * asked again with the longest prefix of that side's words that fits, found by bisection (each
 * probe one call; the successful ones are cached like any call). Whatever the backend
 * (in-process, TEI, vLLM), an over-long pair is a ContextOverflowError, so this works for all of
 * them without knowing their tokenizers. Each cut is returned so the record can say so.
 */
import { ContextOverflowError } from '../../../errors.js';
import type { ClassificationTask, TextPair } from '../../../providers/model-kinds.js';
import type { PairClassifier } from './scorers.js';

export interface PremiseCut {
  /** Index of the pair in the request. */
  pair: number;
  /** Words of the premise (the passage) kept; 0 with `unfit`: not even the other side alone fits. */
  keptWords: number;
  words: number;
  /** The hypothesis alone does not fit: the pair has no score. */
  unfit?: true;
}

export interface WindowedScores {
  /** One per pair; undefined for a pair whose hypothesis alone does not fit. */
  scores: Array<Record<string, number> | undefined>;
  cached: boolean;
  cuts: PremiseCut[];
}

function words(text: string): string[] {
  return text
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
}

/** Which side of a pair is the passage, the one cut: NLI's premise is `text`, relevance's knowledge `textPair`. */
const PASSAGE_SIDE: Partial<Record<ClassificationTask, 'text' | 'textPair'>> = { nli: 'text', relevance: 'textPair' };

async function tryClassify(
  nli: PairClassifier,
  pair: TextPair,
  task: ClassificationTask,
): Promise<{ scores: Record<string, number>; cached: boolean } | undefined> {
  try {
    const r = await nli.classify(task, [pair]);
    return { scores: r.scores[0]!, cached: r.cached };
  } catch (error) {
    if (error instanceof ContextOverflowError) return undefined;
    throw error;
  }
}

/** One over-long pair: the longest prefix of the passage's words that fits, by bisection. */
async function fitPremise(
  nli: PairClassifier,
  pair: TextPair,
  index: number,
  task: ClassificationTask,
): Promise<{ scores: Record<string, number> | undefined; cut: PremiseCut }> {
  const side = PASSAGE_SIDE[task] ?? 'text';
  const premise = words(pair[side]);
  const probe = (n: number) => tryClassify(nli, { ...pair, [side]: premise.slice(0, n).join(' ') }, task);
  let best = await probe(0);
  if (!best) return { scores: undefined, cut: { pair: index, keptWords: 0, words: premise.length, unfit: true } };
  // Invariant: `lo` words fit (scores in `best`), more than `hi` do not.
  let lo = 0;
  let hi = premise.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const r = await probe(mid);
    if (r) {
      lo = mid;
      best = r;
    } else hi = mid - 1;
  }
  return { scores: best.scores, cut: { pair: index, keptWords: lo, words: premise.length } };
}

/** `nli.classify(task, pairs)`, with every over-long passage (NLI's premise, relevance's knowledge) cut to the model's window. */
export async function classifyWithinWindow(nli: PairClassifier, pairs: readonly TextPair[], task: 'nli' | 'relevance' = 'nli'): Promise<WindowedScores> {
  try {
    const r = await nli.classify(task, [...pairs]);
    return { scores: r.scores, cached: r.cached, cuts: [] };
  } catch (error) {
    if (!(error instanceof ContextOverflowError)) throw error;
  }
  // Some pair is too long: each on its own, the over-long ones cut.
  const scores: WindowedScores['scores'] = [];
  const cuts: PremiseCut[] = [];
  let cached = true;
  for (const [i, pair] of pairs.entries()) {
    const whole = await tryClassify(nli, pair, task);
    if (whole) {
      scores.push(whole.scores);
      cached &&= whole.cached;
      continue;
    }
    const fitted = await fitPremise(nli, pair, i, task);
    scores.push(fitted.scores);
    cuts.push(fitted.cut);
    cached = false;
  }
  return { scores, cached, cuts };
}

/** What a record says about its cut premises (relevance: its cut knowledge). */
export function describeCuts(metric: string, cuts: readonly PremiseCut[]): string | undefined {
  if (cuts.length === 0) return undefined;
  const cut = cuts.filter((c) => !c.unfit);
  const unfit = cuts.length - cut.length;
  const [passage, model, other] = metric === 'relevance' ? ['knowledge text', 'relevance', 'query'] : ['premise', 'NLI', 'claim'];
  const parts = [
    ...(cut.length
      ? [
          `${cut.length} ${passage}${cut.length === 1 ? '' : 's'} cut to fit the ${model} model's window (${cut.map((c) => `${c.keptWords} of ${c.words} words`).join(', ')})`,
        ]
      : []),
    ...(unfit ? [`${unfit} pair${unfit === 1 ? '' : 's'} left out: the ${other} alone does not fit the window`] : []),
  ];
  return `${metric}: ${parts.join('; ')}`;
}
