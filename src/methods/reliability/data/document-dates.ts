/** The publication date of a document, read from its metadata, and what a QA set says of its documents' dates. */

/**
 * Metadata fields read as a document's date when none is named (case-insensitive), e.g. a CSV
 * column `published`: with dates on the items, a study can split the questions into knowledge
 * published before and after a model's training cutoff (seen and unseen).
 */
export const DATE_FIELDS: readonly string[] = ['date', 'published', 'publication_date', 'published_date', 'publish_date', 'pub_date', 'year', 'created'];

/**
 * The date of a document from its metadata: the named field, or the first of DATE_FIELDS it has.
 * `date` is `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (as precise as the value is) when the value is a
 * year, starts with an ISO date, or is a date JavaScript parses (e.g. "March 3, 2024");
 * otherwise undefined, and the raw value is kept.
 */
export function documentDate(metadata: Record<string, unknown>, field?: string): { field: string; raw: string; date: string | undefined } | undefined {
  const keys = Object.keys(metadata);
  const key =
    field !== undefined
      ? (keys.find((k) => k === field) ?? keys.find((k) => k.toLowerCase() === field.toLowerCase()))
      : DATE_FIELDS.map((f) => keys.find((k) => k.toLowerCase() === f)).find((k) => k !== undefined);
  if (key === undefined) return undefined;
  const value = metadata[key];
  if (value === null || value === undefined || (typeof value !== 'string' && typeof value !== 'number')) return undefined;
  const raw = String(value).trim();
  if (raw === '') return undefined;
  const iso = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:$|[T ])/.exec(raw);
  if (iso !== null) return { field: key, raw, date: [iso[1], iso[2], iso[3]].filter((x) => x !== undefined).join('-') };
  const parsed = /\d{4}/.test(raw) ? new Date(raw) : undefined;
  if (parsed !== undefined && !Number.isNaN(parsed.getTime())) {
    const pad = (n: number): string => String(n).padStart(2, '0');
    return { field: key, raw, date: `${parsed.getFullYear()}-${pad(parsed.getMonth() + 1)}-${pad(parsed.getDate())}` };
  }
  return { field: key, raw, date: undefined };
}

/** What the card says about the kept items' document dates. */
export interface DocumentDates {
  /** Metadata fields the dates came from. */
  fields: string[];
  dated: number;
  /** Items whose document has the field but a value that is not a date. */
  unparsed: number;
  undated: number;
  earliest?: string;
  latest?: string;
  byYear: Record<string, number>;
}

export function noDocumentDates(): DocumentDates {
  return { fields: [], dated: 0, unparsed: 0, undated: 0, byYear: {} };
}

/** Counts the document date of one kept item (`documentDate`'s answer for its document). */
export function countDocumentDate(dates: DocumentDates, date: ReturnType<typeof documentDate>): void {
  if (date === undefined) {
    dates.undated += 1;
    return;
  }
  if (date.date === undefined) {
    dates.unparsed += 1;
    return;
  }
  dates.dated += 1;
  if (!dates.fields.includes(date.field)) dates.fields.push(date.field);
  const year = date.date.slice(0, 4);
  dates.byYear = Object.fromEntries(Object.entries({ ...dates.byYear, [year]: (dates.byYear[year] ?? 0) + 1 }).sort(([a], [b]) => a.localeCompare(b)));
  if (dates.earliest === undefined || date.date < dates.earliest) dates.earliest = date.date;
  if (dates.latest === undefined || date.date > dates.latest) dates.latest = date.date;
}

/** How many documents of a whole corpus have a date: what the card says when no kept item has one. */
export interface CorpusDates {
  documents: number;
  dated: number;
  /** Metadata fields the dates came from. */
  fields: string[];
}

export function corpusDates(metadata: Iterable<Record<string, unknown>>, field?: string): CorpusDates {
  const result: CorpusDates = { documents: 0, dated: 0, fields: [] };
  for (const m of metadata) {
    result.documents += 1;
    const date = documentDate(m, field);
    if (date?.date === undefined) continue;
    result.dated += 1;
    if (!result.fields.includes(date.field)) result.fields.push(date.field);
  }
  return result;
}
