/**
 * Where llmkb's documentation is read on the web: a standalone report or page links here (a
 * path inside the installed package means nothing to the reader of a file sent by mail). One
 * constant, so a fork that hosts llmkb elsewhere changes one line.
 */
export const DOCS_URL_BASE = 'https://github.com/OWNER/llmkb/blob/main/docs/';

/** The absolute address of a docs page, `page` relative to docs/ with its anchor (`reliability.md#how-close-to-the-paper-is-a-run`). */
export function docsUrl(page: string): string {
  return `${DOCS_URL_BASE}${page}`;
}
