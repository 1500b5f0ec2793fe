import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase } from './database.js';
import { runStage } from './run-stage.js';
import { RunStore, runId } from './run-store.js';

const spec = { model: 'llama:sha256=abc', dataset: 'sha256:def', setting: 'zero-shot', seed: 42, label: 'tiny' };
const items = Array.from({ length: 10 }, (_, i) => ({ id: `q${i}`, question: `question ${i}` }));

describe('RunStore', () => {
  it('derives a stable run id from what changes results, not from the label', () => {
    assert.equal(runId(spec), runId({ ...spec, label: 'other' }));
    assert.notEqual(runId(spec), runId({ ...spec, seed: 43 }));
    assert.notEqual(runId(spec), runId({ ...spec, params: { maxTokens: 50 } }));
  });

  it('reopens the same run for the same spec', () => {
    const store = new RunStore(openDatabase(':memory:'));
    const a = store.open(spec);
    a.saveRecord('ask', 'q1', 1, { response: 'x' });
    const b = store.open(spec);
    assert.equal(b.id, a.id);
    assert.deepEqual(b.records('ask').get('q1'), { response: 'x' });
    assert.equal(store.list().length, 1);
  });
});

describe('runStage', () => {
  it('resumes after a failure: completed items are kept and not redone', async () => {
    const store = new RunStore(openDatabase(':memory:'));
    const run = store.open(spec);
    const calls: string[] = [];
    const failing = runStage({
      run, stage: 'ask', items, idOf: (i) => i.id, concurrency: 1, progress: { quiet: true },
      work: async (item) => {
        calls.push(item.id);
        if (item.id === 'q4') throw new Error('server went away');
        return { record: { answer: item.question.toUpperCase() } };
      },
    });
    await assert.rejects(failing, /server went away/);
    assert.equal(run.stageStatus('ask'), 'running');
    assert.equal(run.records('ask').size, 4);
    calls.length = 0;
    const records = await runStage({
      run, stage: 'ask', items, idOf: (i) => i.id, concurrency: 3, progress: { quiet: true },
      work: async (item) => {
        calls.push(item.id);
        return { record: { answer: item.question.toUpperCase() } };
      },
    });
    assert.deepEqual(calls.sort(), ['q4', 'q5', 'q6', 'q7', 'q8', 'q9']);
    assert.deepEqual([...records.keys()], items.map((i) => i.id), 'records come back in item order');
    assert.equal(run.stageStatus('ask'), 'done');
  });

  it('does not redo a finished stage', async () => {
    const run = new RunStore(openDatabase(':memory:')).open(spec);
    let calls = 0;
    const work = async () => {
      calls += 1;
      return { record: 1 };
    };
    await runStage({ run, stage: 'judge', items, idOf: (i) => i.id, concurrency: 2, work, progress: { quiet: true }, info: (r) => ({ n: r.size }) });
    await runStage({ run, stage: 'judge', items, idOf: (i) => i.id, concurrency: 2, work, progress: { quiet: true } });
    assert.equal(calls, 10);
    assert.deepEqual(run.stageInfo('judge'), { n: 10 });
  });

  it('rejects duplicate item ids', async () => {
    const run = new RunStore(openDatabase(':memory:')).open(spec);
    await assert.rejects(runStage({ run, stage: 's', items: [{ id: 'a' }, { id: 'a' }], idOf: (i) => i.id, concurrency: 1, work: async () => ({ record: 1 }), progress: { quiet: true } }), /duplicate item id a/);
  });
});
