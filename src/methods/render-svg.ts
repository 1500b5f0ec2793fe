/**
 * Charts as SVG: Vega-Lite specs rendered on the server (Vega's headless renderer), so the report
 * is a single file that needs no JavaScript, no fonts and no network to show them.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { showControls } from './visible-controls.js';
import { shownText } from '../text/shown-text.js';

/**
 * Vega numbers SVG gradients with a counter global to the process; reset at the start of each
 * page, a page's ids depend on the page alone (a report is the same bytes whether it is the
 * first or the fifth rendered by a process, as in `llmkb sweep`).
 */
export function resetChartIds(): void {
  vega.resetSVGDefIds();
}

/** A chart's labels are short: every string of its spec (its data's labels, a 5 MB run name) cut at 200 characters. */
function capStrings<T>(value: T): T {
  if (typeof value === 'string') return (value.length > 200 ? shownText(value, 200) : value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => capStrings(v)) as T;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, capStrings(v)])) as T;
  return value;
}

/** The chart as SVG; control characters in its labels (model names, settings) shown as visible signs. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(capStrings(spec)).spec), { renderer: 'none' });
  try {
    return showControls(await view.toSVG());
  } finally {
    view.finalize();
  }
}
