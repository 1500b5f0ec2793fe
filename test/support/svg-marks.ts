/**
 * What a chart of the report shows, read back from its SVG (Vega's renderer): every data mark
 * with the fields of its accessible label (`aria-label="UR (x100): 33.33; setting: zero-shot"`)
 * and, in a figure of panels, the row and column headers it is drawn under (the nearest header
 * label across and along: Vega centres each label on its row or column). A test reads the numbers
 * a figure shows this way, not the spec it was drawn from.
 */

export interface SvgMark {
  /** The mark's kind as Vega describes it: `point`, `bar`, `rect mark`, `line mark`, ... */
  kind: string;
  fields: Record<string, string>;
  x: number;
  y: number;
  /** Header labels of the panel the mark is drawn in, where the figure has them. */
  row?: string;
  column?: string;
}

const TAG = /<(\/?)(g|text|path|line|rect)\b([^>]*?)(\/?)>([^<]*)/g;

function attr(attrs: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(attrs);
  return m ? m[1] : undefined;
}

function translate(attrs: string): [number, number] {
  const m = /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(attr(attrs, 'transform') ?? '');
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
}

const unescapeXml = (s: string): string =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** `a: 1; b: x` to fields; a value's minus sign (U+2212) read as "-". */
function fieldsOf(label: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of unescapeXml(label).split('; ')) {
    const at = part.lastIndexOf(': ');
    if (at > 0) out[part.slice(0, at)] = part.slice(at + 2).replace(/\u2212/g, '-');
  }
  return out;
}

export function svgMarks(svg: string): SvgMark[] {
  const stack: Array<{ x: number; y: number; header?: 'row' | 'column'; title?: boolean; cell?: number; cells?: boolean }> = [{ x: 0, y: 0 }];
  // A wrapped figure of panels draws each panel's title inside its cell, after its marks.
  const cellTitles = new Map<number, string>();
  const cellOf: number[] = [];
  let cells = 0;
  const marks: SvgMark[] = [];
  const headers: Array<{ kind: 'row' | 'column'; text: string; x: number; y: number }> = [];
  for (const m of svg.matchAll(TAG)) {
    const [, close, tag, attrs, selfClose, text] = m as unknown as [string, string, string, string, string, string];
    const top = stack[stack.length - 1]!;
    if (tag === 'g') {
      if (close) stack.pop();
      else if (!selfClose) {
        const [dx, dy] = translate(attrs);
        const cls = attr(attrs, 'class') ?? '';
        const header = /role-row-header/.test(cls) ? 'row' : /role-column-header/.test(cls) ? 'column' : top.header;
        const title = top.title || /role-title\b/.test(cls);
        // The cells' mark group holds one group per panel.
        const cell = top.cells ? cells++ : top.cell;
        stack.push({
          x: top.x + dx,
          y: top.y + dy,
          ...(header ? { header } : {}),
          ...(title ? { title } : {}),
          ...(cell === undefined ? {} : { cell }),
          ...(/role-scope cell\b/.test(cls) ? { cells: true } : {}),
        });
      }
      continue;
    }
    if (close) continue;
    const [dx, dy] = translate(attrs);
    const x = top.x + dx;
    const y = top.y + dy;
    // A panel's header is the title of a row or column header group (its axes live there too).
    if (tag === 'text' && top.header && top.title && text.trim()) headers.push({ kind: top.header, text: unescapeXml(text.trim()), x, y });
    if (tag === 'text' && !top.header && top.title && top.cell !== undefined && text.trim()) cellTitles.set(top.cell, unescapeXml(text.trim()));
    const label = attr(attrs, 'aria-label');
    const kind = attr(attrs, 'aria-roledescription');
    if (label && kind && attr(attrs, 'role') === 'graphics-symbol' && !/axis|legend|title/.test(kind)) {
      marks.push({ kind, fields: fieldsOf(label), x, y });
      cellOf.push(top.cell ?? -1);
    }
  }
  const rows = headers.filter((h) => h.kind === 'row');
  const columns = headers.filter((h) => h.kind === 'column');
  const nearest = (list: typeof headers, key: 'x' | 'y', v: number) => list.reduce((a, b) => (Math.abs(b[key] - v) < Math.abs(a[key] - v) ? b : a)).text;
  return marks.map((mk, i) => {
    const panel = cellTitles.get(cellOf[i]!);
    return {
      ...mk,
      ...(rows.length ? { row: nearest(rows, 'y', mk.y) } : {}),
      ...(columns.length ? { column: nearest(columns, 'x', mk.x) } : panel === undefined ? {} : { column: panel }),
    };
  });
}

/** The SVG of a report's figure, by its id. */
export function figureSvg(html: string, id: string): string | undefined {
  const m = new RegExp(`<figure class="chart[^"]*" id="${id}">([\\s\\S]*?)</figure>`).exec(html);
  return m?.[1];
}
