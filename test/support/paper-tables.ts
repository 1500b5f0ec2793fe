/** The paper's Tables 9-11 (test/fixtures/paper-tables-9-11.json) as per-model, per-setting rows. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MetricRecord } from '../../src/methods/reliability/metrics/reliability-metrics.js';

export const SETTINGS = ['zero-shot', 'four-shot', 'four-shot-2'] as const;
export type PaperSetting = (typeof SETTINGS)[number];

/** Values x100, null where the paper prints "-" or the table is cut off. */
export interface PaperRow {
  model: string;
  family: string;
  params: string;
  setting: PaperSetting;
  WR: number | null;
  CR: number | null;
  NCR: number | null;
  UR: number | null;
  C_wrong_seen: number | null;
  C_wrong_unseen: number | null;
  C_wrong: number | null;
  C_correct: number | null;
  CWR: number | null;
  CCR: number | null;
  NCCR: number | null;
  IUR: number | null;
}

interface Raw {
  rows: Array<{ model: string; family: string; params: string; table9: Array<number | null>; table10?: Array<number | null>; table11?: Array<number | null> }>;
}

export function paperRows(): PaperRow[] {
  const raw = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'paper-tables-9-11.json'), 'utf8')) as Raw;
  const out: PaperRow[] = [];
  for (const r of raw.rows) {
    SETTINGS.forEach((setting, s) => {
      const at = (t: Array<number | null> | undefined, i: number) => t?.[4 * s + i] ?? null;
      out.push({
        model: r.model,
        family: r.family,
        params: r.params,
        setting,
        WR: at(r.table9, 0),
        CR: at(r.table9, 1),
        NCR: at(r.table9, 2),
        UR: at(r.table9, 3),
        C_wrong_seen: at(r.table10, 0),
        C_wrong_unseen: at(r.table10, 1),
        C_wrong: at(r.table10, 2),
        C_correct: at(r.table10, 3),
        CWR: at(r.table11, 0),
        CCR: at(r.table11, 1),
        NCCR: at(r.table11, 2),
        IUR: at(r.table11, 3),
      });
    });
  }
  return out;
}

/** Consistency scores k/20 for `count` responses whose mean is as close as possible to `mean`. */
function consistencies(count: number, mean: number | null): number[] {
  if (count === 0) return [];
  const total = Math.round((mean ?? 0) * count * 20);
  const q = Math.floor(total / count);
  const extra = total - q * count;
  return Array.from({ length: count }, (_, i) => (q + (i < extra ? 1 : 0)) / 20);
}

/** Synthetic records (N = L = 3,000, as in the paper) whose rates match a row of the paper. */
export function syntheticRecords(row: PaperRow, n = 3000, l = 3000): MetricRecord[] {
  const nCorrect = Math.round(((row.CR ?? 0) / 100) * n);
  const nWrong = Math.round(((row.WR ?? 0) / 100) * n);
  const lUninformative = Math.round(((row.UR ?? 0) / 100) * l);
  const records: MetricRecord[] = [];
  for (const c of consistencies(nCorrect, row.C_correct === null ? null : row.C_correct / 100))
    records.push({ dataset: 'seen', label: 'correct', consistency: c });
  for (const c of consistencies(nWrong, row.C_wrong_seen === null ? null : row.C_wrong_seen / 100))
    records.push({ dataset: 'seen', label: 'wrong', consistency: c });
  for (let i = 0; i < n - nCorrect - nWrong; i++) records.push({ dataset: 'seen', label: 'uninformative', consistency: null });
  for (const c of consistencies(l - lUninformative, row.C_wrong_unseen === null ? null : row.C_wrong_unseen / 100))
    records.push({ dataset: 'unseen', label: 'wrong', consistency: c });
  for (let i = 0; i < lUninformative; i++) records.push({ dataset: 'unseen', label: 'uninformative', consistency: null });
  return records;
}
