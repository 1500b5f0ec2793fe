/**
 * What tells two runs of one label apart, as `llmkb runs` and the viewer's runs list show it:
 * when the run was made and last worked on, whether it was a quick look, its `--limit`, its MCQs
 * per response (a run parameter of methods that ask them) and its question set (the words its
 * result files carry for it, and a short checksum of its items).
 */
import type { ListedRun } from './list-runs.js';

export interface RunColumns {
  created: string;
  updated: string;
  quick: boolean;
  limit: number | null;
  mcqs: number | null;
  /** The question set: the method's words for it (e.g. `input-q`), else `default`, and the items' checksum, short. */
  questions: string;
}

/** An ISO time as `YYYY-MM-DD HH:MM` (UTC), `-` when unknown. */
export function shortTime(iso: string | undefined): string {
  return iso === undefined ? '-' : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

export function runColumns(run: ListedRun): RunColumns {
  const words = run.variant ?? [];
  const limit = typeof run.params?.limit === 'number' ? run.params.limit : null;
  const mcqs = typeof run.params?.mcqs === 'number' ? run.params.mcqs : null;
  const own = words.filter((w) => w !== 'quick' && !/^limit-\d+$/.test(w) && !/^mcqs-\d+$/.test(w));
  return {
    created: shortTime(run.createdAt),
    updated: shortTime(run.updatedAt),
    quick: words.includes('quick'),
    limit,
    mcqs,
    questions: `${own.length ? own.join('.') : 'default'}${run.dataset ? ` ${run.dataset.replace(/^sha256:/, '').slice(0, 8)}` : ''}`,
  };
}

/** Rows of text in columns, each as wide as its widest cell. */
export function textTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
