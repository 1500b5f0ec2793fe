/**
 * Control characters in text bound for a page (the report, the viewer, a chart's labels) shown as
 * visible signs: C0 but tab, line feed and carriage return (layout whitespace in HTML), DEL, C1,
 * and the bidirectional embeddings, overrides and isolates, which would reorder the text around
 * them. A NUL never reaches a page raw, and an override cannot change what the reader sees.
 */
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** A control character as a visible sign: C0 and DEL as their U+2400 symbols (NUL as ␀), the others as `\uHHHH`. */
function visibleControl(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control character (see `CONTROLS`) as its visible sign. */
export function showControls(text: string): string {
  return text.replace(CONTROLS, visibleControl);
}
