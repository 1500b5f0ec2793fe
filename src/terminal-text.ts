/**
 * Text quoted from input (a records line, a file name, a server's answer, a request's path) is
 * printed with its control characters made visible: an escape sequence copied to a terminal would
 * act there (set the window title, move the cursor, rewrite what the user reads; a carriage return
 * overwrites the line), and a bidirectional override reorders what follows it. Each such
 * character is shown as a `\xHH` or `\uHHHH` escape instead; a line break and a tab stay as
 * they are, since messages are laid out with them.
 */

/**
 * C0 controls but tab and line feed, DEL, C1 controls, the bidirectional embeddings, overrides and
 * isolates, the line and paragraph separators, and the zero-width marks that reorder or hide text.
 */
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

/** `text` with every control character (see `CONTROLS`) written as its escape. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
