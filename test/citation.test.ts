/**
 * CITATION.cff is valid YAML in the Citation File Format's shape, names this version, and cites the
 * same two papers as the README's BibTeX.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { fencedBlocks } from './support/markdown-docs.js';

const root = join(import.meta.dirname, '..');

interface Cff {
  'cff-version': string;
  title: string;
  version: string;
  authors: unknown[];
  references: { title: string; year: number; authors: { 'family-names': string }[] }[];
}

describe('citing llmkb and its methods', () => {
  const cff = parse(readFileSync(join(root, 'CITATION.cff'), 'utf8')) as Cff;
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

  it('CITATION.cff has the fields CFF 1.2.0 requires and this version', () => {
    assert.equal(cff['cff-version'], '1.2.0');
    assert.ok(cff.title && cff.authors.length > 0, 'a title and authors');
    assert.equal(cff.version, pkg.version, 'the version in CITATION.cff is the package version');
  });

  it("the README's BibTeX cites the papers CITATION.cff references", () => {
    const bib = fencedBlocks(readFileSync(join(root, 'README.md'), 'utf8')).find((b) => b.lang === 'bibtex');
    assert.ok(bib, 'the README has a bibtex block');
    const titles = [...bib.text.matchAll(/(?<!book)title\s*=\s*\{(.+)\},/g)].map((m) => m[1]!.replace(/[{}]/g, ''));
    assert.deepEqual(
      titles,
      cff.references.map((r) => r.title),
      'the same papers, in the same order',
    );
    for (const r of cff.references) assert.ok(bib.text.includes(`${r.authors[0]!['family-names']}, `), `the BibTeX names ${r.authors[0]!['family-names']}`);
  });
});
