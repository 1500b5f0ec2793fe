/**
 * The paper's analyses of CONNER runs, from the per-item records (no model call):
 *
 * - Somers' D between each intrinsic and each extrinsic metric (Tables 5, 6 and 15), per run and
 *   pooled over runs: D(extrinsic | intrinsic), the intrinsic score as X and the extrinsic one as
 *   Y, as scipy.stats.somersd(x, y) computes it; helpfulness per item unclipped (the clip only
 *   adds ties at 0); a two-sided permutation p-value (seeded), marked † below 0.05 as the paper.
 * - Long-tail knowledge (Fig. 2a): the items binned by the Wikipedia pageviews of their topic (a
 *   `topic<TAB>views` file, as the authors' `*_topic_pageviews.txt`), one bin per decade
 *   [10^k, 10^(k+1)) as the figure's axis, each bin's mean of the three factuality parts.
 * - Long-form knowledge (Fig. 2b): knowledge over 40 words, binned by its number of sentences
 *   (the factuality units: 1, 2, 3, 4, 5 or more), each bin's mean of the three parts.
 * - Table 10's reference-reliant baselines where the records allow: the entailment ratio (the
 *   mean entailment of each sentence by its best premise, when every premise chosen is the
 *   reference knowledge or one of its sentences), unigram F1 of the knowledge against the reference knowledge, and EM and
 *   token F1 of the answer against the gold answer (SQuAD normalisation). The hallucinated-NE
 *   ratio needs a named-entity recogniser, which llmkb has not: it is not computed.
 */
import { normalizeAnswer, normalizedTokens } from '../../../text/normalize-answer.js';
import type { ScoredKnowledge } from '../scoring/scored-knowledge.js';
import { metricValue } from './metric-aggregates.js';
import { somersTest, type SomersResult } from './somers-d.js';

/** The intrinsic metrics of Tables 5, 6 and 15, in their order (Fact., Rel., Coh-sent., Coh-para., Info.). */
export const INTRINSIC_COLUMNS = ['factuality', 'relevance', 'coherence_sentence', 'coherence_paragraph', 'informativeness'] as const;
/** The extrinsic rows: helpfulness per item before max(0, .) and validity. */
export const EXTRINSIC_ROWS = ['helpfulness_raw', 'validity'] as const;

export type IntrinsicExtrinsic = Record<(typeof EXTRINSIC_ROWS)[number], Record<(typeof INTRINSIC_COLUMNS)[number], SomersResult | null>>;

/** D(extrinsic | intrinsic) for every pair, over the items with both values (null: fewer than 3 such items). */
export function intrinsicExtrinsicSomers(records: readonly ScoredKnowledge[], options: { permutations: number; seed: number }): IntrinsicExtrinsic {
  const out = {} as IntrinsicExtrinsic;
  for (const e of EXTRINSIC_ROWS) {
    out[e] = {} as IntrinsicExtrinsic[typeof e];
    for (const i of INTRINSIC_COLUMNS) {
      const x: number[] = [];
      const y: number[] = [];
      for (const r of records) {
        const xv = metricValue(r, i);
        const yv = metricValue(r, e);
        if (xv === null || yv === null) continue;
        x.push(xv);
        y.push(yv);
      }
      out[e][i] = x.length < 3 ? null : somersTest(x, y, options.permutations, options.seed);
    }
  }
  return out;
}

/** One bin of Fig. 2: its items and the mean of each factuality part over them. */
export interface FactualityBin {
  bin: string;
  n: number;
  consistent: number;
  nonVerified: number;
  inconsistent: number;
}

function parts(r: ScoredKnowledge): [number, number, number] | null {
  const { factualConsistent: c, nonVerified: n, factualInconsistent: i } = r.scores;
  return c === null || n === null || i === null ? null : [c, n, i];
}

function binned(entries: ReadonlyArray<{ key: number; label: string; parts: [number, number, number] }>): FactualityBin[] {
  const bins = new Map<number, { label: string; sums: [number, number, number]; n: number }>();
  for (const e of entries) {
    const b = bins.get(e.key) ?? { label: e.label, sums: [0, 0, 0], n: 0 };
    b.n++;
    b.sums = [b.sums[0] + e.parts[0], b.sums[1] + e.parts[1], b.sums[2] + e.parts[2]];
    bins.set(e.key, b);
  }
  return [...bins.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, b]) => ({ bin: b.label, n: b.n, consistent: b.sums[0] / b.n, nonVerified: b.sums[1] / b.n, inconsistent: b.sums[2] / b.n }));
}

/** Fig. 2a: items by the decade of their topic's pageviews; items whose topic has no count are counted apart. */
export function longTail(records: readonly ScoredKnowledge[], pageviews: ReadonlyMap<string, number>): { bins: FactualityBin[]; withoutViews: number } {
  let withoutViews = 0;
  const entries: Array<{ key: number; label: string; parts: [number, number, number] }> = [];
  for (const r of records) {
    const p = parts(r);
    if (p === null) continue;
    const views = pageviews.get(r.topic);
    if (views === undefined || !(views > 0)) {
      withoutViews++;
      continue;
    }
    const k = Math.floor(Math.log10(views) + 1e-12);
    entries.push({ key: k, label: `10^${k}-10^${k + 1}`, parts: p });
  }
  return { bins: binned(entries), withoutViews };
}

/** Knowledge longer than this many words enters Fig. 2b (the paper: "over 40 tokens"). */
export const LONG_FORM_MIN_WORDS = 40;
const words = (text: string): number => text.split(/\s+/).filter((w) => w !== '').length;

/** Fig. 2b: knowledge over 40 words by its number of sentences (5 or more in one bin). */
export function longForm(records: readonly ScoredKnowledge[], minWords = LONG_FORM_MIN_WORDS): { bins: FactualityBin[]; shorter: number } {
  let shorter = 0;
  const entries: Array<{ key: number; label: string; parts: [number, number, number] }> = [];
  for (const r of records) {
    const p = parts(r);
    if (p === null || r.sentences.length === 0) continue;
    if (words(r.knowledge) <= minWords) {
      shorter++;
      continue;
    }
    const k = Math.min(5, r.sentences.length);
    entries.push({ key: k, label: k === 5 ? '5+' : String(k), parts: p });
  }
  return { bins: binned(entries), shorter };
}

/** Unigram F1 of two texts after SQuAD normalisation (0 when either is empty). */
export function tokenF1(prediction: string, reference: string): number {
  const p = normalizedTokens(prediction);
  const g = normalizedTokens(reference);
  if (p.length === 0 || g.length === 0) return p.length === g.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Table 10's baselines as metric ids, what each is compared with among the human ratings, and a label. */
export const BASELINE_METRICS = [
  {
    id: 'entailment_ratio',
    rating: 'factuality',
    label: 'ER (NLI)',
    what: 'mean entailment of each sentence by its best reference premise (Lee et al. 2023); reference evidence only',
  },
  { id: 'knowledge_f1', rating: 'relevance', label: 'F1 (knowledge)', what: 'unigram F1 of the knowledge against the reference knowledge (Liu et al. 2022)' },
  { id: 'answer_em', rating: 'validity', label: 'EM', what: 'exact match of the answer and the gold answer (SQuAD normalisation)' },
  { id: 'answer_f1', rating: 'validity', label: 'F1 (answer)', what: 'token F1 of the answer against the gold answer (SQuAD normalisation)' },
] as const;
export type BaselineId = (typeof BASELINE_METRICS)[number]['id'];

/** One item's value of a Table 10 baseline; null where the record lacks what it needs. */
export function baselineValue(r: ScoredKnowledge, id: BaselineId): number | null {
  switch (id) {
    case 'entailment_ratio':
      // Reference-reliant: only when every sentence's best premise is (a part of) the reference knowledge.
      if (r.sentences.length === 0 || r.sentences.some((s) => s.evidence !== undefined && !s.evidence.source.startsWith('reference'))) return null;
      return r.sentences.reduce((a, s) => a + s.nli[0], 0) / r.sentences.length;
    case 'knowledge_f1':
      return r.referenceKnowledge === undefined || r.referenceKnowledge.trim() === '' ? null : tokenF1(r.knowledge, r.referenceKnowledge);
    case 'answer_em':
      return r.answer === null || r.goldAnswer === null ? null : normalizeAnswer(r.answer) === normalizeAnswer(r.goldAnswer) ? 1 : 0;
    case 'answer_f1':
      return r.answer === null || r.goldAnswer === null ? null : tokenF1(r.answer, r.goldAnswer);
  }
}

/** The run's mean of each baseline and the items it is defined for. */
export function baselineMeans(records: readonly ScoredKnowledge[]): Record<BaselineId, { mean: number | null; n: number }> {
  const out = {} as Record<BaselineId, { mean: number | null; n: number }>;
  for (const { id } of BASELINE_METRICS) {
    const vs = records.map((r) => baselineValue(r, id)).filter((v): v is number => v !== null);
    out[id] = { mean: vs.length === 0 ? null : vs.reduce((a, b) => a + b, 0) / vs.length, n: vs.length };
  }
  return out;
}

/**
 * A `topic<TAB>views` file (the authors' `*_topic_pageviews.txt`: one line per test item, topics
 * repeated) as topic -> views. A line that is not `text<TAB>whole number`, or a topic given two
 * different counts, is named by its line.
 */
export function parsePageviews(text: string, file: string, fail: (line: number, message: string) => Error): Map<string, number> {
  const views = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const tab = line.lastIndexOf('\t');
    const topic = tab < 0 ? '' : line.slice(0, tab).trim();
    const count = tab < 0 ? '' : line.slice(tab + 1).trim();
    if (topic === '' || !/^\d+$/.test(count)) throw fail(i + 1, `"${line.slice(0, 80)}" is not a topic, a tab and a whole number of pageviews`);
    const n = Number(count);
    const seen = views.get(topic);
    if (seen !== undefined && seen !== n) throw fail(i + 1, `topic "${topic}" has ${n} pageviews here and ${seen} on an earlier line of ${file}`);
    views.set(topic, n);
  });
  return views;
}
