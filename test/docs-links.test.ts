/**
 * Every relative link of README.md and docs/**: the file it names exists, and the `#anchor` it
 * gives is a heading of that page (GitHub's anchors). Every docs page is linked from some page.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { docPages, headingAnchors, headingSlug, relativeLinks } from './support/markdown-docs.js';

const root = join(import.meta.dirname, '..');

/** The broken relative links of the pages, as `page:line: target (why)`. */
function brokenLinks(dir: string, pages: string[]): string[] {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (page: string): Set<string> => {
    if (!anchorsOf.has(page)) anchorsOf.set(page, headingAnchors(readFileSync(join(dir, page), 'utf8')));
    return anchorsOf.get(page)!;
  };
  const broken: string[] = [];
  for (const page of pages) {
    for (const link of relativeLinks(readFileSync(join(dir, page), 'utf8'))) {
      const target =
        link.path === ''
          ? page
          : normalize(join(dirname(page), link.path))
              .split('\\')
              .join('/');
      const where = `${page}:${link.line}: ${link.path}${link.anchor === undefined ? '' : `#${link.anchor}`}`;
      if (!existsSync(join(dir, target))) {
        broken.push(`${where} (no file ${target})`);
        continue;
      }
      if (link.anchor !== undefined && target.endsWith('.md') && !anchors(target).has(link.anchor))
        broken.push(`${where} (no heading with anchor #${link.anchor} in ${target})`);
    }
  }
  return broken;
}

describe('documentation links', () => {
  it('every relative link of README.md and docs/ resolves, anchors included', () => {
    const broken = brokenLinks(root, docPages(root));
    assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
  });

  it('every page under docs/ is linked from README.md or another page', () => {
    const pages = docPages(root);
    const linked = new Set<string>();
    for (const page of pages) {
      for (const link of relativeLinks(readFileSync(join(root, page), 'utf8'))) {
        if (link.path !== '')
          linked.add(
            normalize(join(dirname(page), link.path))
              .split('\\')
              .join('/'),
          );
      }
    }
    const orphans = pages.filter((p) => p !== 'README.md' && !linked.has(p));
    assert.deepEqual(orphans, [], `pages no page links to: ${orphans.join(', ')}`);
  });
});

describe('the link checker', () => {
  it("gives headings GitHub's anchors", () => {
    assert.equal(headingSlug('Configuration: llmkb.config.json'), 'configuration-llmkbconfigjson');
    assert.equal(headingSlug('How close to the paper is a run?'), 'how-close-to-the-paper-is-a-run');
    assert.equal(headingSlug('C_wrong and NCCR (Eq. 9)'), 'c_wrong-and-nccr-eq-9');
    assert.equal(headingSlug('Questions from your documents: PDFs → corpus'), 'questions-from-your-documents-pdfs--corpus');
    const anchors = headingAnchors('# Title\n\n## Runs\n\n```sh\n# not a heading\n```\n\n## Runs\n\n### `llmkb view`\n');
    assert.deepEqual([...anchors], ['title', 'runs', 'runs-1', 'llmkb-view']);
  });

  it('finds a missing file, a missing anchor, and ignores code and external links', () => {
    const dir = join(import.meta.dirname, 'fixtures', 'docs-links');
    const broken = brokenLinks(dir, ['README.md', 'docs/page.md']);
    assert.deepEqual(broken, [
      'README.md:5: docs/missing.md (no file docs/missing.md)',
      'README.md:6: docs/page.md#no-such-heading (no heading with anchor #no-such-heading in docs/page.md)',
      'docs/page.md:5: #nowhere (no heading with anchor #nowhere in docs/page.md)',
    ]);
  });
});
