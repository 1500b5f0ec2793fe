/** The output oracle's readers of the tables a command prints or writes: Markdown and CSV, as cells. */
import assert from 'node:assert/strict';

/** A Markdown table's rows as cells (header first), from the first table after `heading`. */
export function markdownRows(md: string, heading?: string): string[][] {
  const at = heading ? md.indexOf(heading) : 0;
  assert.ok(at >= 0, `no "${heading}" in the output`);
  const lines = md.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const l of lines.slice(start)) {
    if (!l.startsWith('|')) break;
    if (/^\|\s*---/.test(l)) continue;
    rows.push(
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** A CSV file's rows as cells (quoted cells unquoted). */
export function csvRows(csv: string): string[][] {
  return csv
    .trim()
    .split('\n')
    .map((l) => [...l.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].slice(0, -1).map((m) => m[1]!.replace(/^"|"$/g, '').replace(/""/g, '"')));
}
