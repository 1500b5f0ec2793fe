/**
 * From what a classifier server returns to the scores llmkb's classification models report
 * (`ClassificationResult.scores`): NLI probabilities of `entailment`, `neutral`, `contradiction`
 * summing to 1, and relevance as a probability in [0, 1].
 *
 * The rule, the same for every backend (docs/models.md, "Scorers"):
 * - llmkb asks servers for RAW scores (logits) wherever the API allows it (TEI `raw_scores: true`,
 *   vLLM `use_activation: false`) and applies the activation itself, so the numbers do not depend
 *   on a server's default: relevance = sigmoid(logit) (a one-logit cross-encoder, as
 *   sentence-transformers' CrossEncoder does), NLI = softmax over the label logits.
 * - A server that can only return probabilities (older vLLM has no `use_activation`) is used as
 *   `scores: "probability"`: the values are taken as they are and checked to be probabilities.
 * - A relevance or coherence model with two or more outputs (monoBERT's not-relevant / relevant
 *   logits, as the CONNER authors' src/relevance.py reads them: softmax, then the relevant one)
 *   scores the probability of its positive label, named by the config's `labels` map or by the
 *   label's own name.
 */
import { ModelCallError, ModelSpecError } from '../../errors.js';
import { NLI_LABELS, type NliLabel } from '../model-kinds.js';

/** The class a single-score task reports: `relevant` for relevance, `coherent` for coherence. */
export const POSITIVE_LABEL = { relevance: 'relevant', coherence: 'coherent' } as const;
export type ScoreTask = keyof typeof POSITIVE_LABEL;

/** What a config's `labels` map may name: the NLI labels, and the classes of the single-score tasks. */
export const CLASS_LABELS = [...NLI_LABELS, 'relevant', 'not-relevant', 'coherent', 'incoherent'] as const;
export type ClassLabel = (typeof CLASS_LABELS)[number];
export type LabelMap = Readonly<Record<string, ClassLabel>>;

export type ScoreScale = 'logit' | 'probability';

export function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

/** Stable softmax. */
export function softmax(logits: readonly number[]): number[] {
  const max = Math.max(...logits);
  const exps = logits.map((v) => Math.exp(v - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

/**
 * The NLI label a model's label name stands for: the configured map first (for `LABEL_0`-style
 * names), else the name itself (`ENTAILMENT`, `entailment`, `contradiction`, `Neutral`, ...).
 */
export function nliLabelFor(name: string, map: LabelMap | undefined): NliLabel | undefined {
  const mapped = map?.[name];
  if (mapped) return (NLI_LABELS as readonly string[]).includes(mapped) ? (mapped as NliLabel) : undefined;
  const lower = name.trim().toLowerCase();
  if (lower.startsWith('entail')) return 'entailment';
  if (lower.startsWith('neutral')) return 'neutral';
  if (lower.startsWith('contradict')) return 'contradiction';
  return undefined;
}

/**
 * NLI probabilities from one pair's label scores. `scale: "logit"`: softmax over the model's
 * labels; `"probability"`: the values as given, which must sum to 1. Every label of the model
 * must map to one of the three (a two-label model's `not_entailment` is mapped by the config), so
 * the three always sum to 1.
 */
/** Label probabilities: softmax of logits, or probabilities as given (checked to be a distribution). */
function labelProbabilities(labelScores: ReadonlyArray<{ label: string; score: number }>, scale: ScoreScale, where: string): number[] {
  const probabilities = scale === 'logit' ? softmax(labelScores.map((l) => l.score)) : labelScores.map((l) => l.score);
  if (scale === 'probability') {
    const total = probabilities.reduce((a, b) => a + b, 0);
    if (probabilities.some((p) => !(p >= 0 && p <= 1)) || Math.abs(total - 1) > 1e-3) {
      throw new ModelCallError(`${where} returned label scores that are not probabilities (${labelScores.map((l) => `${l.label}=${l.score}`).join(', ')})`, {
        retryable: false,
        hint: 'The server returns raw logits: set "scores": "logit" for this model in llmkb.config.json.',
      });
    }
  }
  return probabilities;
}

export function nliScores(
  labelScores: ReadonlyArray<{ label: string; score: number }>,
  scale: ScoreScale,
  map: LabelMap | undefined,
  where: string,
): Record<NliLabel, number> {
  const probabilities = labelProbabilities(labelScores, scale, where);
  const out: Record<NliLabel, number> = { entailment: 0, neutral: 0, contradiction: 0 };
  const unknown: string[] = [];
  labelScores.forEach((l, i) => {
    const label = nliLabelFor(l.label, map);
    if (label) out[label] += probabilities[i]!;
    else unknown.push(l.label);
  });
  if (unknown.length > 0) {
    throw new ModelCallError(
      `${where}: cannot tell which of the model's labels ${labelScores.map((l) => l.label).join(', ')} is entailment, neutral or contradiction`,
      {
        retryable: false,
        hint: `Map them with "labels" for this model in llmkb.config.json, e.g. {"LABEL_0": "contradiction", "LABEL_1": "entailment", "LABEL_2": "neutral"} (the model card's id2label).`,
      },
    );
  }
  return out;
}

/**
 * Which of a multi-output model's labels is the task's positive class: the one the `labels` map
 * names (`"LABEL_1": "relevant"`), else the one so named (`relevant`; Qwen3-Reranker's `yes`).
 * Checked when a model loads, so a wrong map fails before any call.
 */
export function positiveIndex(labels: readonly string[], task: ScoreTask, map: LabelMap | undefined, where: string): number {
  const positive = POSITIVE_LABEL[task];
  const named = (name: string): boolean => {
    const lower = name.trim().toLowerCase();
    return lower === positive || (task === 'relevance' && lower === 'yes');
  };
  const mapped = map === undefined ? [] : labels.flatMap((l, i) => (map[l] === positive ? [i] : []));
  const found = mapped.length > 0 ? mapped : labels.flatMap((l, i) => (named(l) ? [i] : []));
  if (found.length !== 1) {
    // A server may list the labels by score: the suggestion is the last by name (LABEL_1 of two).
    const last = [...labels].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1);
    throw new ModelSpecError(
      `${where} has ${labels.length} outputs (${labels.join(', ')}) and ${found.length === 0 ? 'none' : 'more than one'} of them is the "${positive}" class`,
      {
        hint: `Name it with "labels" for this model in llmkb.config.json, e.g. {"${last}": "${positive}"} (a two-logit monoBERT ranker: the second output; the model card's id2label says which).`,
      },
    );
  }
  return found[0]!;
}

/**
 * A single-score task's probability from one pair's outputs: one output is a logit (sigmoid) or a
 * probability; several are softmaxed (or taken as probabilities) and the positive one is read.
 */
export function positiveScore(
  labelScores: ReadonlyArray<{ label: string; score: number }>,
  task: ScoreTask,
  scale: ScoreScale,
  map: LabelMap | undefined,
  where: string,
): number {
  if (labelScores.length === 1) return relevanceScore(labelScores[0]!.score, scale, where);
  for (const l of labelScores)
    if (!Number.isFinite(l.score)) throw new ModelCallError(`${where} returned a score that is not a number (${l.score})`, { retryable: false });
  const index = positiveIndex(
    labelScores.map((l) => l.label),
    task,
    map,
    where,
  );
  return labelProbabilities(labelScores, scale, where)[index]!;
}

/** The scores entry of a single-score task: `{relevant: p}` or `{coherent: p}`. */
export function positiveEntry(task: ScoreTask, p: number): Record<string, number> {
  return { [POSITIVE_LABEL[task]]: p };
}

/** Relevance in [0, 1] from a cross-encoder's one score. */
export function relevanceScore(score: number, scale: ScoreScale, where: string): number {
  if (!Number.isFinite(score)) throw new ModelCallError(`${where} returned a score that is not a number (${score})`, { retryable: false });
  if (scale === 'logit') return sigmoid(score);
  if (score < 0 || score > 1) {
    throw new ModelCallError(`${where} returned a relevance score of ${score}, outside [0, 1]`, {
      retryable: false,
      hint: 'The server returns raw logits: set "scores": "logit" for this model in llmkb.config.json.',
    });
  }
  return score;
}

export { NLI_LABELS };
