/**
 * Parses a Python list of string literals, e.g. `['Linda Davis', "Ain't Misbehavin'", 'caf\xe9']`,
 * as the DPR-format QA files store their answers (written by Python's `repr`). Only what `repr`
 * of a list of str produces is accepted; anything else is an error with its position, not a guess.
 */
export class PythonLiteralError extends Error {}

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0' };

export function parsePythonStringList(text: string): string[] {
  let i = 0;
  const fail = (what: string): never => {
    throw new PythonLiteralError(`${what} at character ${i + 1} of ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)}`);
  };
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const str = (): string => {
    const q = text[i];
    if (q !== "'" && q !== '"') fail('expected a quoted string');
    i++;
    let out = '';
    while (i < text.length && text[i] !== q) {
      const ch = text[i]!;
      if (ch !== '\\') {
        out += ch;
        i++;
        continue;
      }
      const e = text[i + 1];
      if (e === undefined) fail('unfinished escape');
      if (e! in SIMPLE_ESCAPES) {
        out += SIMPLE_ESCAPES[e!];
        i += 2;
      } else if (e === 'x' || e === 'u' || e === 'U') {
        const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = text.slice(i + 2, i + 2 + len);
        if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) fail(`bad \\${e} escape`);
        out += String.fromCodePoint(parseInt(hex, 16));
        i += 2 + len;
      } else {
        // Python keeps unknown escapes as they are.
        out += `\\${e}`;
        i += 2;
      }
    }
    if (text[i] !== q) fail('unterminated string');
    i++;
    return out;
  };
  ws();
  if (text[i] !== '[') fail('expected "["');
  i++;
  const items: string[] = [];
  ws();
  if (text[i] === ']') {
    i++;
  } else {
    for (;;) {
      ws();
      items.push(str());
      ws();
      if (text[i] === ',') {
        i++;
        ws();
        if (text[i] === ']') {
          i++;
          break;
        }
        continue;
      }
      if (text[i] === ']') {
        i++;
        break;
      }
      fail('expected "," or "]"');
    }
  }
  ws();
  if (i !== text.length) fail('unexpected text after the list');
  return items;
}
