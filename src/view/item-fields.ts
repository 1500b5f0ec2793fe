/**
 * A method's declared item fields (`MethodView.itemFields`) in the viewer's addresses and pages:
 * an item selection as query parameters and back (`f.NAME=value` for a text field,
 * `f.NAME.min` / `f.NAME.max` for a number field's range, `sort=NAME` or `sort=-NAME`), each
 * field's filter, its column (a header that sorts by it) and its values as shown.
 */
import { escapeHtml } from '../methods/html-parts.js';
import type { ItemFieldDef, ItemSelection } from '../methods/method-presentation.js';
import type { ItemFilter } from './view-queries.js';

const esc = (v: unknown): string => escapeHtml(v === null || v === undefined ? '' : String(v));

/** A declared field's value as the items table shows it. */
export function formatField(def: ItemFieldDef, value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (def.kind === 'text' || typeof value !== 'number') return String(value);
  if (def.format === 'percent') return (100 * value).toFixed(2);
  if (def.format === 'integer' || Number.isInteger(value)) return String(Math.round(value));
  return value.toFixed(3);
}

/** An item selection as query parameters (empty ones left out by `qs`). */
export function selectionParams(s: ItemSelection): Record<string, string | number | undefined> {
  const out: Record<string, string | number | undefined> = {
    label: s.label,
    subtype: s.subtype,
    source: s.source,
    answerType: s.answerType,
    dataset: s.dataset,
    cmin: s.consistencyMin,
    cmax: s.consistencyMax,
  };
  for (const [name, c] of Object.entries(s.fields ?? {})) {
    out[`f.${name}`] = c.value;
    out[`f.${name}.min`] = c.min;
    out[`f.${name}.max`] = c.max;
  }
  return out;
}

function number(v: string | null): number | undefined {
  if (v === null || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** The declared fields' filters and the sort of a request; parameters of fields the method does not declare are ignored. */
export function fieldFilterFrom(p: URLSearchParams, defs: readonly ItemFieldDef[]): Pick<ItemFilter, 'fields' | 'sort'> {
  const fields: Record<string, { value?: string; min?: number; max?: number }> = {};
  for (const def of defs) {
    const c: { value?: string; min?: number; max?: number } = {};
    if (def.kind === 'text') {
      const value = p.get(`f.${def.name}`);
      if (value) c.value = value;
    } else {
      const min = number(p.get(`f.${def.name}.min`));
      const max = number(p.get(`f.${def.name}.max`));
      if (min !== undefined) c.min = min;
      if (max !== undefined) c.max = max;
    }
    if (Object.keys(c).length) fields[def.name] = c;
  }
  const sortParam = p.get('sort') ?? '';
  const field = defs.find((d) => d.name === sortParam.replace(/^-/, ''));
  return { ...(Object.keys(fields).length ? { fields } : {}), ...(field ? { sort: { field, descending: sortParam.startsWith('-') } } : {}) };
}

/** The sort as a query parameter. */
export function sortParam(filter: ItemFilter): string | undefined {
  return filter.sort ? `${filter.sort.descending ? '-' : ''}${filter.sort.field.name}` : undefined;
}

/** The filters of the declared fields: a text field's values with their counts, a number field's range. */
export function fieldFiltersHtml(
  defs: readonly ItemFieldDef[],
  facets: Readonly<Record<string, ReadonlyArray<{ value: string | null; n: number }>>>,
  filter: ItemFilter,
): string {
  return defs
    .map((def) => {
      const c = filter.fields?.[def.name] ?? {};
      const hint = def.description ? ` title="${esc(def.description)}"` : '';
      if (def.kind === 'text') {
        const options = (facets[def.name] ?? []).map((o) => {
          const v = o.value ?? '(none)';
          return `<option value="${esc(v)}"${v === c.value ? ' selected' : ''}>${esc(v)} (${o.n})</option>`;
        });
        return `<label${hint}>${esc(def.title)} <select name="f.${esc(def.name)}"><option value="">any</option>${options.join('')}</select></label>`;
      }
      return `<label${hint}>${esc(def.title)} <input type="number" name="f.${esc(def.name)}.min" step="any" value="${esc(c.min ?? '')}" placeholder="min" class="short"> – <input type="number" name="f.${esc(def.name)}.max" step="any" value="${esc(c.max ?? '')}" placeholder="max" class="short"></label>`;
    })
    .join('\n');
}

/** The columns of the declared fields shown in the items table. */
export function fieldColumns(defs: readonly ItemFieldDef[]): readonly ItemFieldDef[] {
  return defs.filter((d) => d.column !== false);
}

/** A field's column header: a link that sorts by it (ascending, then descending), marked when it is the sort. */
export function fieldHeader(def: ItemFieldDef, filter: ItemFilter, href: (sort: string) => string): string {
  const current = filter.sort?.field.name === def.name ? (filter.sort.descending ? 'desc' : 'asc') : undefined;
  const next = current === 'asc' ? `-${def.name}` : def.name;
  const mark = current === 'asc' ? ' ▲' : current === 'desc' ? ' ▼' : '';
  return `<th${current ? ` aria-sort="${current === 'asc' ? 'ascending' : 'descending'}"` : ''}${def.description ? ` title="${esc(def.description)}"` : ''}><a class="sort" href="${esc(href(next))}">${esc(def.columnTitle ?? def.title)}${mark}</a></th>`;
}
