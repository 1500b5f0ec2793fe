/**
 * A damaged `OUT/batches/` journal (left by an interrupted `sweep --batch`, then edited or cut
 * short) ends the sweep with exit 2, naming the file and how to discard it; not exit 70 (issue 37).
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXIT_CODES } from '../src/errors.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('sweep --batch with a damaged journal', () => {
  const journals: Array<[string, string, RegExp]> = [
    ['cut short (not JSON)', '{"batchId": "b1", bad', /b1\.json: a damaged --batch journal: not JSON/],
    ['a control character in a string', '{"batchId": "b1\u0001"}', /b1\.json: a damaged --batch journal: not JSON \(Bad control character/],
    ['fields missing', '{"batchId": "b1"}', /b1\.json \(field "baseURL"\): a damaged --batch journal/],
    [
      'requests of the wrong shape',
      JSON.stringify({ batchId: 'b1', baseURL: 'http://127.0.0.1:9/v1', modelIdentity: 'x', submittedAt: '', requests: [{ customId: 1 }] }),
      /b1\.json \(field "requests\.0\.customId"\): a damaged --batch journal/,
    ],
  ];
  for (const [name, content, message] of journals) {
    it(`${name}: exit 2, the file named, how to discard it`, async () => {
      const dir = tempDir('llmkb-journal-');
      made.push(dir);
      writeFileSync(
        join(dir, 'qa.jsonl'),
        `${JSON.stringify({ id: 'q1', dataset: 'seen', source: 'mine', question: 'What is the capital of France?', answers: ['Paris'] })}\n`,
      );
      writeFileSync(join(dir, 'replies.jsonl'), `${JSON.stringify({ default: true, reply: ' Paris' })}\n`);
      writeFileSync(
        join(dir, 'study.json'),
        JSON.stringify({
          name: 'b',
          models: [{ label: 'm', spec: 'mock:replies.jsonl' }],
          settings: ['zero-shot'],
          input: 'qa.jsonl',
          judge: { spec: 'openai-compatible:http://127.0.0.1:9/v1/gpt-judge', api: 'chat' },
        }),
      );
      mkdirSync(join(dir, 'out', 'batches'), { recursive: true });
      writeFileSync(join(dir, 'out', 'batches', 'b1.json'), content);
      const r = await llmkb(['--store', 's.sqlite', 'sweep', 'study.json', '--out', 'out', '--batch'], { cwd: dir });
      assert.equal(r.code, EXIT_CODES.usage, r.stderr);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /hint: Delete it \(rm ".*b1\.json"\) to discard that batch/);
      assert.doesNotMatch(r.stderr, /internal error/);
    });
  }
});
