/**
 * A run against a server that reports what it serves (vLLM's `/v1/models` root): its calls are
 * keyed with that identity (src/executor/call-key.ts), and the viewer's item page finds them by
 * the keys the records keep and shows the exact prompt and the MCQ exchange from the call cache,
 * not a prompt rebuilt from the template.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { callKey } from '../src/executor/call-key.js';
import { CallCache } from '../src/store/call-cache.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { startViewServer } from '../src/view/view-server.js';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

describe('the viewer and a server that reports its checkpoint', () => {
  it('the item page shows the exact prompt and MCQ exchange of calls keyed with the served identity', async () => {
    const dir = tempDir('llmkb-served-view-');
    const qa = join(dir, 'qa.jsonl');
    writeFileSync(
      qa,
      `${[0, 1, 2].map((i) => JSON.stringify({ id: `q${i}`, dataset: 'seen', source: 'nq', question: `what is the capital number ${i}?`, answers: ['Paris'] })).join('\n')}\n`,
    );
    const server = await startOpenAICompatibleServer({
      served: { id: 'm', root: '/ckpt/step-1000' },
      complete: () => ' Paris\nQUESTION:',
      nextToken: () => ({ ' A': 0.6, ' B': 0.4 }),
    });
    const store = join(dir, 's.sqlite');
    try {
      const r = await llmkb(
        ['--store', store, 'eval', '--model', `vllm:${server.baseURL}/m`, '--input', qa, '--settings', 'zero-shot', '--mcqs', '1', '--out', 'res'],
        { cwd: dir },
      );
      assert.equal(r.code, 0, r.stderr);
    } finally {
      await server.close();
    }
    // The records keep the keys their calls were made with: the model's identity and what the server serves.
    const db = openDatabase(store);
    const cache = new CallCache(db);
    const run = new RunStore(db).list()[0]!;
    const asked = new RunStore(db).open(run.spec).record<{ callKey: string }>('ask', 'q0')!;
    const request = cache.request(asked.callKey);
    assert.ok(request, "the call of the record's key is in the cache");
    const params = JSON.parse(request) as object;
    assert.equal(callKey([run.spec.model, 'served=root=/ckpt/step-1000'].join('\u0000'), 'complete', params), asked.callKey);
    assert.notEqual(callKey(run.spec.model, 'complete', params), asked.callKey, "not the model's name alone");
    cache.close();
    db.close();

    const view = await startViewServer({ store, resultsDir: join(dir, 'res'), port: 0 });
    try {
      const res = await fetch(`${view.url}/runs/${run.id}/items/q0`);
      assert.equal(res.status, 200);
      const page = await res.text();
      assert.match(page, /Prompt sent/);
      assert.match(page, /what is the capital number 0\?/);
      assert.doesNotMatch(page, /not found in the call cache|Not in the call cache/, 'every exchange is found in the cache');
      assert.match(page, /Prompt of MCQ 1[\s\S]*INSTRUCTION: Please answer knowledge-related multi-choice/);
    } finally {
      await view.close();
    }
  });
});
