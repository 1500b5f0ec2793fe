import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readQAItems } from './qa-item.js';
import { tempDir } from '#test-support/temp-dir.js';

describe('a question file with a missing or mistyped field', () => {
  const dir = tempDir('llmkb-qa-item-');
  after(() => rmSync(dir, { recursive: true, force: true }));
  const read = (line: object) => {
    const file = join(dir, 'q.jsonl');
    writeFileSync(file, `${JSON.stringify(line)}\n`);
    return () => readQAItems(file);
  };

  it('says what a missing field is for, with an example', () => {
    assert.throws(
      read({ id: 'q1', dataset: 'seen', question: 'What is the capital of France?', answers: ['Paris'] }),
      /q\.jsonl:1 \(field "source"\): missing: the source the question comes from, for the by-source tables, e\.g\. "nq"/,
    );
  });

  it('says what a mistyped field should hold and what it found', () => {
    assert.throws(
      read({ id: 'q1', dataset: 'known', source: 'mine', question: 'Q?', answers: ['A'] }),
      /\(field "dataset"\): expected the question set, "seen" \(answers known\) or "unseen" \(no answer exists\); found "known"/,
    );
    assert.throws(
      read({ id: 'q1', dataset: 'seen', source: 'mine', question: 'Q?', answers: 'A' }),
      /\(field "answers"\): expected a list of accepted answers, e\.g\. \["Paris"\]/,
    );
  });
});
