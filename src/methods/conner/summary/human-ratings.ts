/**
 * Human ratings (the paper's section 6, Table 17: 0 unacceptable, 1 acceptable, 2 excellent), one
 * JSONL line per rated knowledge text, and Somers' D between each metric and them. Every rating
 * must name exactly one scored knowledge text (by id, and by generator and setting when several
 * are scored): an unknown id, a generator or setting not scored, a rating that fits several, or
 * two ratings of one text are errors naming the line, checked before any scoring.
 */
import { z } from 'zod';
import { InputFileError } from '../../../errors.js';
import { readJsonl } from '../../../io/jsonl.js';
import { readTextFile } from '../../../io/files.js';
import type { ScoredKnowledge } from '../scoring/scored-knowledge.js';
import { baselineValue, BASELINE_METRICS } from './analyses.js';
import { metricValue } from './metric-aggregates.js';
import { somersTest, type SomersResult } from './somers-d.js';

const score = z
  .union([z.literal(0), z.literal(1), z.literal(2)], { error: "must be 0 (unacceptable), 1 (acceptable) or 2 (excellent), the scale of the paper's Table 17" })
  .optional();

export const ratingSchema = z
  .object({
    id: z.string().min(1),
    /** Which knowledge was rated when several generators or settings share query ids. */
    generator: z.string().min(1).optional(),
    setting: z.string().min(1).optional(),
    factuality: score,
    relevance: score,
    coherence: score,
    informativeness: score,
    helpfulness: score,
    validity: score,
  })
  .strict();
export type HumanRating = z.infer<typeof ratingSchema>;

/** A rating with the line it is on. */
export interface RatingLine extends HumanRating {
  line: number;
}

export function readRatings(file: string): RatingLine[] {
  const ratings = readJsonl(file, ratingSchema, 'rating');
  // readJsonl skips blank lines: the k-th rating is on the k-th non-blank line.
  const lines = readTextFile(file)
    .split('\n')
    .flatMap((l, i) => (l.trim() === '' ? [] : [i + 1]));
  return ratings.map((r, k) => ({ ...r, line: lines[k]! }));
}

/** A scored (or to-be-scored) knowledge text as ratings name it. */
export interface RatedKey {
  id: string;
  generator: string;
  setting: string;
}

const keyOf = (k: RatedKey): string => `${k.generator}\u0000${k.setting}\u0000${k.id}`;

/**
 * Each rating's knowledge text, by key. Refuses, naming the file and line, a rating that names
 * no scored text, several of them, or one another rating already names.
 */
export function matchRatings(file: string, ratings: readonly RatingLine[], scored: readonly RatedKey[]): Map<string, HumanRating> {
  const byId = new Map<string, RatedKey[]>();
  for (const k of scored) byId.set(k.id, [...(byId.get(k.id) ?? []), k]);
  const groups = (ks: readonly RatedKey[]): string => [...new Set(ks.map((k) => `${k.generator} (${k.setting})`))].join(', ');
  const matched = new Map<string, HumanRating>();
  const lineOf = new Map<string, number>();
  for (const r of ratings) {
    const sameId = byId.get(r.id) ?? [];
    if (sameId.length === 0) {
      throw new InputFileError(
        file,
        r.line,
        'id',
        `no scored knowledge has id "${r.id}"`,
        'A rating names a knowledge text by the id of its record in the knowledge files being scored (with --limit, only the sampled ones are scored).',
      );
    }
    const fits = sameId.filter((k) => (r.generator === undefined || k.generator === r.generator) && (r.setting === undefined || k.setting === r.setting));
    if (fits.length === 0) {
      const field = r.generator !== undefined && !sameId.some((k) => k.generator === r.generator) ? 'generator' : 'setting';
      throw new InputFileError(
        file,
        r.line,
        field,
        `"${r.id}" is scored for ${groups(sameId)}, not for ${r.generator ?? '(any generator)'} (${r.setting ?? 'any setting'})`,
        'Name the generator and setting as the knowledge records do ("generator", "setting" of `conner generate`).',
      );
    }
    if (fits.length > 1) {
      throw new InputFileError(
        file,
        r.line,
        r.generator === undefined ? 'generator' : 'setting',
        `"${r.id}" is scored for several knowledge texts: ${groups(fits)}`,
        'Add "generator" and "setting" to the rating so it names one of them.',
      );
    }
    const key = keyOf(fits[0]!);
    const first = lineOf.get(key);
    if (first !== undefined)
      throw new InputFileError(
        file,
        r.line,
        'id',
        `a second rating of "${r.id}" for ${groups(fits)} (the first is on line ${first})`,
        'Keep one rating per knowledge text (the paper averages its annotators before correlating).',
      );
    lineOf.set(key, r.line);
    const { line: _line, ...rating } = r;
    matched.set(key, rating);
  }
  return matched;
}

/** Which human rating each metric is compared with (Table 17's dimensions; coherence for both levels). */
const RATING_OF: Record<string, keyof Omit<HumanRating, 'id' | 'generator' | 'setting'>> = {
  factuality: 'factuality',
  relevance: 'relevance',
  coherence_sentence: 'coherence',
  coherence_paragraph: 'coherence',
  informativeness: 'informativeness',
  helpfulness: 'helpfulness',
  validity: 'validity',
};

/**
 * Somers' D(metric | human rating) per metric over the records a rating names (matched by
 * `matchRatings`), and of Table 10's reference-reliant baselines (./analyses.ts) with the rating
 * of the perspective each stands for.
 */
export function humanCorrelation(
  records: readonly ScoredKnowledge[],
  ratings: ReadonlyMap<string, HumanRating>,
  permutations: number,
  seed: number,
): Record<string, SomersResult> {
  const out: Record<string, SomersResult> = {};
  const compared: Array<[string, (typeof RATING_OF)[string], (r: ScoredKnowledge) => number | null]> = [
    ...Object.entries(RATING_OF).map(
      ([metric, dim]) =>
        [metric, dim, (r: ScoredKnowledge) => metricValue(r, metric)] as [string, (typeof RATING_OF)[string], (r: ScoredKnowledge) => number | null],
    ),
    ...BASELINE_METRICS.map(
      (b) => [b.id, b.rating, (r: ScoredKnowledge) => baselineValue(r, b.id)] as [string, (typeof RATING_OF)[string], (r: ScoredKnowledge) => number | null],
    ),
  ];
  for (const [metric, dim, metricOf] of compared) {
    const x: number[] = [];
    const y: number[] = [];
    for (const r of records) {
      const h = ratings.get(keyOf(r))?.[dim];
      const v = metricOf(r);
      if (h === undefined || v === null) continue;
      x.push(h);
      y.push(v);
    }
    if (x.length > 1) out[metric] = somersTest(x, y, permutations, seed);
  }
  return out;
}
