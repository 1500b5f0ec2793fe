/**
 * A method lives in its folder: no source file outside `src/methods/<id>/` names a built-in
 * method's id or one of its metrics (quoted, as code does), so a third method needs no edit
 * elsewhere. (Imports are checked by the dependency rules, .dependency-cruiser.cjs.) The one
 * exception: `relevance` is also a task of classification models (src/providers/), which CONNER
 * borrows for its relevance metric.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { BUILTIN_METHODS } from '../src/methods/builtin-methods.js';

const SRC = join(import.meta.dirname, '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Names that are also the vocabulary of a shared part, with the folder where they mean that. */
const SHARED_WORDS: Record<string, RegExp> = { relevance: /^providers\// };

describe('each method is confined to its folder', () => {
  it('no file outside src/methods/<id>/ names a built-in method id or metric id', () => {
    const offences: string[] = [];
    for (const method of BUILTIN_METHODS) {
      const words = [method.id, ...method.metricDefs.map((d) => d.id)];
      const quoted = new RegExp(`['"\`](${words.map((w) => w.replace(/[^\w-]/g, '\\$&')).join('|')})['"\`]`, 'g');
      for (const file of sources(SRC)) {
        const path = relative(SRC, file).split('\\').join('/');
        if (path.startsWith(`methods/${method.id}/`)) continue;
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            for (const m of line.matchAll(quoted)) if (!SHARED_WORDS[m[1]!]?.test(path)) offences.push(`src/${path}:${i + 1}: ${m[0]} (method ${method.id})`);
          });
      }
    }
    assert.deepEqual(offences, []);
  });
});
