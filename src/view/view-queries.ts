/**
 * The view index's queries: a page of a run's items under filters (with full-text search), the
 * values of a column with their counts, count tables, one item, and two runs' items side by side.
 * Every value from a request is a bound parameter; column names come from the fixed list below.
 */
import { ftsQuery } from '../corpus/index.js';
import type { ItemFieldDef, ItemSelection } from '../methods/method-presentation.js';
import type { ViewIndex, ViewRun } from './view-index.js';

export interface ItemFilter extends ItemSelection {
  text?: string;
  /** A declared field to order the items by (nulls last), then item order. */
  sort?: { field: ItemFieldDef; descending: boolean };
}

export interface ItemRow {
  id: number;
  item_id: string;
  seq: number;
  dataset: string | null;
  source: string | null;
  answer_type: string | null;
  label: string | null;
  subtype: string | null;
  consistency: number | null;
  judged_by: string | null;
  question: string | null;
  response: string | null;
  /** The item's declared fields (`MethodView.itemFields`), by name. */
  fields: Record<string, string | number | null>;
}

export type ItemColumn = 'label' | 'subtype' | 'source' | 'answer_type' | 'dataset';

/** The run's items in the full-text index (once, on its first text search). */
function ensureFts(index: ViewIndex, key: string): void {
  const fts = (index.db.prepare('SELECT fts FROM sources WHERE run_key = ?').get(key) as { fts: number } | undefined)?.fts;
  if (fts !== 0) return;
  index.db
    .transaction(() => {
      index.db.prepare('INSERT INTO items_fts (rowid, question, response) SELECT id, question, response FROM items WHERE run_key = ?').run(key);
      index.db.prepare('UPDATE sources SET fts = 1 WHERE run_key = ?').run(key);
    })
    .immediate();
}

function where(index: ViewIndex, run: ViewRun, filter: ItemFilter): { sql: string; params: unknown[] } {
  const clauses = ['i.run_key = ?'];
  const params: unknown[] = [run.key];
  const eq = (column: string, value: string | undefined) => {
    if (value === undefined || value === '') return;
    if (value === '(none)') clauses.push(`i.${column} IS NULL`);
    else {
      clauses.push(`i.${column} = ?`);
      params.push(value);
    }
  };
  eq('label', filter.label);
  eq('subtype', filter.subtype);
  eq('source', filter.source);
  eq('answer_type', filter.answerType);
  eq('dataset', filter.dataset);
  if (filter.consistencyMin !== undefined) {
    clauses.push('i.consistency >= ?');
    params.push(filter.consistencyMin);
  }
  if (filter.consistencyMax !== undefined) {
    clauses.push('i.consistency <= ?');
    params.push(filter.consistencyMax);
  }
  // Declared fields: a text field's value ("(none)": no value), a number field's range.
  for (const [name, c] of Object.entries(filter.fields ?? {})) {
    if (c.value === '(none)') {
      clauses.push('NOT EXISTS (SELECT 1 FROM item_fields f WHERE f.item = i.id AND f.name = ?)');
      params.push(name);
    } else if (c.value !== undefined && c.value !== '') {
      clauses.push('EXISTS (SELECT 1 FROM item_fields f WHERE f.item = i.id AND f.name = ? AND f.text = ?)');
      params.push(name, c.value);
    }
    if (c.min !== undefined || c.max !== undefined) {
      clauses.push(
        `EXISTS (SELECT 1 FROM item_fields f WHERE f.item = i.id AND f.name = ?${c.min === undefined ? '' : ' AND f.num >= ?'}${c.max === undefined ? '' : ' AND f.num <= ?'})`,
      );
      params.push(name, ...(c.min === undefined ? [] : [c.min]), ...(c.max === undefined ? [] : [c.max]));
    }
  }
  const match = filter.text ? ftsQuery(filter.text) : undefined;
  if (match) {
    ensureFts(index, run.key);
    clauses.push('i.id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)');
    params.push(match);
  }
  return { sql: clauses.join(' AND '), params };
}

/** One page of a run's items (in item order) and how many match; a page past the last shows the last. */
export function queryItems(
  index: ViewIndex,
  run: ViewRun,
  filter: ItemFilter,
  page: number,
  pageSize: number,
): { rows: ItemRow[]; total: number; page: number } {
  const { sql, params } = where(index, run, filter);
  const total = (index.db.prepare(`SELECT count(*) AS n FROM items i WHERE ${sql}`).get(...params) as { n: number }).n;
  const last = Math.max(0, Math.ceil(total / pageSize) - 1);
  const shown = Math.min(Math.max(0, Math.floor(page)), last);
  const sort = filter.sort;
  const value = sort?.field.kind === 'number' ? 's.num' : 's.text';
  const rows = index.db
    .prepare(
      `SELECT i.id, i.item_id, i.seq, i.dataset, i.source, i.answer_type, i.label, i.subtype, i.consistency, i.judged_by, substr(i.question, 1, 300) AS question, substr(i.response, 1, 300) AS response FROM items i
       ${sort ? 'LEFT JOIN item_fields s ON s.item = i.id AND s.name = ?' : ''} WHERE ${sql} ORDER BY ${sort ? `${value} IS NULL, ${value} ${sort.descending ? 'DESC' : 'ASC'}, ` : ''}i.seq LIMIT ? OFFSET ?`,
    )
    .all(...(sort ? [sort.field.name] : []), ...params, pageSize, shown * pageSize) as ItemRow[];
  return { rows: withFields(index, rows), total, page: shown };
}

/** Rows with their declared fields. */
function withFields(index: ViewIndex, rows: Array<Omit<ItemRow, 'fields'>>): ItemRow[] {
  const byItem = new Map(rows.map((r) => [r.id, {} as Record<string, string | number | null>]));
  if (rows.length > 0) {
    const fields = index.db
      .prepare(`SELECT item, name, text, num FROM item_fields WHERE item IN (${rows.map(() => '?').join(',')})`)
      .all(...rows.map((r) => r.id)) as Array<{ item: number; name: string; text: string | null; num: number | null }>;
    for (const f of fields) byItem.get(f.item)![f.name] = f.num ?? f.text;
  }
  return rows.map((r) => ({ ...r, fields: byItem.get(r.id)! }));
}

/** Distinct values of a declared text field with their counts (items without one: `null`), for its filter. */
export function fieldFacets(index: ViewIndex, run: ViewRun, name: string): Array<{ value: string | null; n: number }> {
  return index.db
    .prepare(
      'SELECT f.text AS value, count(*) AS n FROM items i LEFT JOIN item_fields f ON f.item = i.id AND f.name = ? WHERE i.run_key = ? GROUP BY f.text ORDER BY f.text',
    )
    .all(name, run.key) as Array<{ value: string | null; n: number }>;
}

/** Distinct values of a column with their counts, for the filters. */
export function facets(index: ViewIndex, run: ViewRun, column: ItemColumn): Array<{ value: string | null; n: number }> {
  return index.db.prepare(`SELECT ${column} AS value, count(*) AS n FROM items WHERE run_key = ? GROUP BY ${column} ORDER BY ${column}`).all(run.key) as Array<{
    value: string | null;
    n: number;
  }>;
}

/** Item counts by (group, dataset, label), the groups in natural order (T2 before T10); `label`: only items of that label. */
export function countsBy(
  index: ViewIndex,
  run: ViewRun,
  column: 'source' | 'answer_type' | 'subtype',
  label?: string,
): Array<{ grp: string | null; dataset: string | null; label: string | null; n: number }> {
  const rows = index.db
    .prepare(
      `SELECT ${column} AS grp, dataset, label, count(*) AS n FROM items WHERE run_key = ? ${label === undefined ? '' : 'AND label = ?'} GROUP BY ${column}, dataset, label`,
    )
    .all(...(label === undefined ? [run.key] : [run.key, label])) as Array<{ grp: string | null; dataset: string | null; label: string | null; n: number }>;
  return rows.sort((a, b) => (a.grp ?? '').localeCompare(b.grp ?? '', 'en', { numeric: true }));
}

export function itemRow(index: ViewIndex, run: ViewRun, itemId: string): ItemRow | undefined {
  const row = index.db
    .prepare(
      'SELECT id, item_id, seq, dataset, source, answer_type, label, subtype, consistency, judged_by, question, response FROM items WHERE run_key = ? AND item_id = ?',
    )
    .get(run.key, itemId) as Omit<ItemRow, 'fields'> | undefined;
  return row ? withFields(index, [row])[0] : undefined;
}

export interface ComparedItem {
  item_id: string;
  question: string | null;
  source: string | null;
  a_label: string | null;
  b_label: string | null;
  a_subtype: string | null;
  b_subtype: string | null;
  differ: number;
  a_response: string | null;
  b_response: string | null;
  a_cons: number | null;
  b_cons: number | null;
}

/** Two runs' items side by side (joined on the item id), the ones whose labels differ first; a page past the last shows the last. */
export function compareItems(
  index: ViewIndex,
  a: ViewRun,
  b: ViewRun,
  options: { onlyDisagreements: boolean; page: number; pageSize: number },
): { rows: ComparedItem[]; total: number; disagreements: number; shared: number; page: number } {
  const join = 'FROM items x JOIN items y ON y.run_key = ? AND y.item_id = x.item_id WHERE x.run_key = ?';
  const differ = "(coalesce(x.label, '') <> coalesce(y.label, '') OR coalesce(x.subtype, '') <> coalesce(y.subtype, ''))";
  const counts = index.db.prepare(`SELECT count(*) AS shared, coalesce(sum(${differ}), 0) AS disagreements ${join}`).get(b.key, a.key) as {
    shared: number;
    disagreements: number;
  };
  const total = options.onlyDisagreements ? counts.disagreements : counts.shared;
  const page = Math.min(Math.max(0, Math.floor(options.page)), Math.max(0, Math.ceil(total / options.pageSize) - 1));
  const rows = index.db
    .prepare(
      `SELECT x.item_id, substr(x.question, 1, 300) AS question, x.source, x.label AS a_label, y.label AS b_label, x.subtype AS a_subtype, y.subtype AS b_subtype, ${differ} AS differ, substr(x.response, 1, 200) AS a_response, substr(y.response, 1, 200) AS b_response, x.consistency AS a_cons, y.consistency AS b_cons
       ${join} ${options.onlyDisagreements ? `AND ${differ}` : ''} ORDER BY ${differ} DESC, x.seq LIMIT ? OFFSET ?`,
    )
    .all(b.key, a.key, options.pageSize, page * options.pageSize) as ComparedItem[];
  return { rows, total, disagreements: counts.disagreements, shared: counts.shared, page };
}
