/**
 * Default list prices of well-known hosted models, for `llmkb sweep --plan` when the study gives
 * no `price:` for one (a study's own price always wins). Per million tokens, US dollars, the
 * provider's standard (not Batch, not cached-input) rates as published on the page below on the
 * date below: prices change, so the plan says which it used and from when.
 */
import type { Price } from './study.js';

/** When the table was taken from its source (YYYY-MM). */
export const LIST_PRICES_DATE = '2025-06';
export const LIST_PRICES_SOURCE = 'https://platform.openai.com/docs/pricing';

/** Model name (as the hosted API names it) to its list price. */
const LIST_PRICES: Readonly<Record<string, Price>> = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-4-1106-preview': { input: 10, output: 30 },
  'gpt-4-0125-preview': { input: 10, output: 30 },
  'gpt-4': { input: 30, output: 60 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
  'gpt-3.5-turbo-0125': { input: 0.5, output: 1.5 },
  'gpt-3.5-turbo-instruct': { input: 1.5, output: 2 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'text-embedding-3-large': { input: 0.13, output: 0 },
};

/**
 * The list price of a spec's model when it is a hosted model of the table: a spec of a scheme and
 * a bare model name (`openai:gpt-4o`, `openai:gpt-4o-2024-08-06`), never one behind a server
 * named by URL (a self-served model has no per-token list price).
 */
export function listPrice(spec: string): Price | undefined {
  const colon = spec.indexOf(':');
  const name = spec.slice(colon + 1);
  if (colon === -1 || name.includes('/') || name.includes(':')) return undefined;
  return LIST_PRICES[name] ?? LIST_PRICES[name.replace(/-\d{4}-\d{2}-\d{2}$/, '')];
}
