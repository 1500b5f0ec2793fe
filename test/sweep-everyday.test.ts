/**
 * A sweep as a researcher uses it every day (issue 40, item 7): `--quick` on the command line,
 * and a plan of a fresh study that counts its calls and prices a well-known hosted model from
 * the default list (dated), naming what it cannot price.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { llmkb } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';
import { LIST_PRICES_DATE, listPrice } from '../src/sweep/list-prices.js';

const STUDY = 'name: fresh\nmodels:\n  - label: chatgpt\n    spec: openai:gpt-3.5-turbo\n  - label: local\n    spec: vllm:http://127.0.0.1:9/v1/some-model\n';

describe('sweep for everyday use', () => {
  it('--quick overrides the study: the plan counts the quick subset', async () => {
    const cwd = tempDir('llmkb-sweep-quick-');
    writeFileSync(join(cwd, 'study.yaml'), STUDY);
    const full = await llmkb(['--store', 'store.sqlite', 'sweep', 'study.yaml', '--plan'], { cwd, env: { OPENAI_API_KEY: '' } });
    assert.equal(full.code, 0, full.stderr);
    assert.doesNotMatch(full.stdout.split('\n')[0]!, /\(quick\)/);
    const quick = await llmkb(['--store', 'store.sqlite', 'sweep', 'study.yaml', '--plan', '--quick'], { cwd, env: { OPENAI_API_KEY: '' } });
    assert.equal(quick.code, 0, quick.stderr);
    assert.match(quick.stdout.split('\n')[0]!, /\(quick\)/);
    assert.match(quick.stdout, /^chatgpt\s+reliability\s+zero-shot\s+40\s+new/m, quick.stdout);
  });

  it('the plan of a fresh study: calls counted before the data sets are built; ChatGPT priced by its dated list price, the self-served model named apart', async () => {
    const cwd = tempDir('llmkb-sweep-plan-');
    writeFileSync(join(cwd, 'study.yaml'), STUDY);
    const r = await llmkb(['--store', 'store.sqlite', 'sweep', 'study.yaml', '--plan'], { cwd, env: { OPENAI_API_KEY: '' } });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /model unknown/, r.stdout);
    assert.match(r.stdout, /^chatgpt\s+reliability\s+zero-shot\s+6000\s+new/m);
    assert.match(r.stdout, /not built yet: estimated with the 3000 seen \+ 3000 unseen questions/);
    const money = r.stdout.split('\n').find((l) => l.startsWith('money'));
    assert.ok(money, r.stdout);
    assert.match(money, new RegExp(`for chatgpt, which give none, the default list price of ${LIST_PRICES_DATE} \\(https://`));
    assert.match(money, /model \d+\.\d+ \(not counted: the runs of 1 model with no price in the study and no list price known, local;/);
    assert.doesNotMatch(money, /no price,|no price$/);
  });

  it('list prices: hosted model names (a dated snapshot too), never a model behind a URL', () => {
    assert.deepEqual(listPrice('openai:gpt-4o'), { input: 2.5, output: 10 });
    assert.deepEqual(listPrice('openai:gpt-4o-2024-08-06'), { input: 2.5, output: 10 });
    assert.equal(listPrice('vllm:http://localhost:8000/v1/gpt-4o'), undefined);
    assert.equal(listPrice('gguf:/models/x.gguf'), undefined);
  });
});
