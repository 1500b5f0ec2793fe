/** Pieces of the HTML report that a method's own report sections use too (Vega loads only when a figure is drawn). */
import type { TopLevelSpec } from 'vega-lite';
import { FLAG, warningsOn } from './summary-warnings.js';
import type { MethodSummary } from './method-summary.js';
import { showControls } from './visible-controls.js';
import { shownText } from '../text/shown-text.js';

/**
 * Text as HTML (element content or an attribute value): markup escaped, and control characters
 * shown as visible signs, so a NUL never reaches the page raw and a bidirectional override cannot
 * reorder what the reader sees. Pages also isolate text containers (`unicode-bidi` in their
 * style), so right-to-left text in a cell does not reorder its neighbours. Cut at SHOWN_CHARACTERS
 * (see shownText).
 */
export function escapeHtml(text: string): string {
  return showControls(shownText(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'));
}

/** Style rules that keep model text in its own bidirectional context (as `<bdi>` and dir="auto" would). */
export const ISOLATE_CSS =
  'td,th,pre,li,dd,dt,blockquote,figcaption,summary{unicode-bidi:plaintext}span,a,code,q,sup,strong,em,b,i,label,option{unicode-bidi:isolate}';

export function htmlTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, className = ''): string {
  return `<table class="${className}"><thead><tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c, i) => (i === 0 ? `<th scope="row">${escapeHtml(c)}</th>` : `<td>${escapeHtml(c)}</td>`)).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

/** Vega's SVG, with anything that is not drawing removed (it contains none, but the page promises no script). */
function safeSvg(svg: string): string {
  return svg.replace(/<script[\s\S]*?<\/script>/gi, '').replace(/\son\w+="[^"]*"/gi, '');
}

export async function figure(spec: TopLevelSpec, caption: string): Promise<string> {
  const { renderSvg } = await import('./render-svg.js');
  return `<figure class="chart">${safeSvg(await renderSvg(spec))}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

/**
 * The mark on a value that a run's warnings concern: a dagger whose tooltip says why (empty when
 * none does). Table cells that carry it also get the class `flagged`.
 */
export function flagMark(summary: Pick<MethodSummary, 'warnings' | 'metrics'> | undefined, metric: string): string {
  const on = summary ? warningsOn(summary, metric) : [];
  return on.length ? `<sup class="flag" title="${escapeHtml(on.map((w) => w.message).join(' '))}">${FLAG}</sup>` : '';
}
