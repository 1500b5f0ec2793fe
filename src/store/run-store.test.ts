import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase } from './database.js';
import { runStage, runStoredStage } from './run-stage.js';
import { runId } from './run-spec.js';
import { RunStore } from './run-store.js';

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
      run,
      stage: 'ask',
      items,
      idOf: (i) => i.id,
      concurrency: 1,
      progress: { quiet: true },
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
      run,
      stage: 'ask',
      items,
      idOf: (i) => i.id,
      concurrency: 3,
      progress: { quiet: true },
      work: async (item) => {
        calls.push(item.id);
        return { record: { answer: item.question.toUpperCase() } };
      },
    });
    assert.deepEqual(calls.sort(), ['q4', 'q5', 'q6', 'q7', 'q8', 'q9']);
    assert.deepEqual(
      [...records.keys()],
      items.map((i) => i.id),
      'records come back in item order',
    );
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

  it('runs a stage over items loaded by id, keeps nothing but the projected info, and resumes from the store', async () => {
    const run = new RunStore(openDatabase(':memory:')).open(spec);
    // The previous stage's records, in the store: the next stage loads them one at a time.
    run.saveRecords(
      'ask',
      items.map((item, seq) => ({ itemId: item.id, seq, record: { ...item, answer: `a${seq}` } })),
    );
    const loaded: string[] = [];
    const source = { ids: items.map((i) => i.id), load: (id: string) => (loaded.push(id), run.record<{ id: string; answer: string }>('ask', id)!) };
    let fail = true;
    const work = async (r: { id: string; answer: string }) => {
      if (fail && r.id === 'q6') throw new Error('judge went away');
      return { record: { id: r.id, label: Number(r.answer.slice(1)) % 3 === 0 ? 'correct' : 'wrong', detail: 'x'.repeat(600) } };
    };
    const info = (done: Iterable<[string, string]>) => {
      const labels: Record<string, number> = {};
      const order: string[] = [];
      for (const [id, label] of done) {
        order.push(id);
        labels[label] = (labels[label] ?? 0) + 1;
      }
      return { labels, order };
    };
    const stage = { run, stage: 'judge', items: source, concurrency: 1, progress: { quiet: true }, work, project: (r: { label: string }) => r.label, info };
    await assert.rejects(runStoredStage(stage), /judge went away/);
    // Every record finished before the failure is committed (the last group at the failure).
    assert.deepEqual(run.recordIds('judge'), ['q0', 'q1', 'q2', 'q3', 'q4', 'q5']);
    fail = false;
    loaded.length = 0;
    await runStoredStage(stage);
    assert.deepEqual(loaded, ['q6', 'q7', 'q8', 'q9'], 'only the items without a record are loaded');
    // The info covers resumed and new records, in item order, as a pass over the store gives.
    assert.deepEqual(run.stageInfo('judge'), { labels: { correct: 4, wrong: 6 }, order: items.map((i) => i.id) });
    assert.deepEqual(
      [...run.entries<{ label: string }, string>('judge', (r) => r.label)].map(([id]) => id),
      items.map((i) => i.id),
    );
    assert.equal(run.record<{ detail: string }>('judge', 'q9')!.detail.length, 600, 'a long record comes back whole (stored deflated)');
  });

  it('reads many records by id in one query each 128, in the order asked, deflated ones too', () => {
    const run = new RunStore(openDatabase(':memory:')).open(spec);
    const ids = Array.from({ length: 300 }, (_, i) => `r${i}`);
    // Saved out of order; every tenth long enough to be stored deflated.
    run.saveRecords(
      'ask',
      [...ids].reverse().map((id, k) => ({ itemId: id, seq: 299 - k, record: { id, text: Number(id.slice(1)) % 10 === 0 ? 'y'.repeat(3000) : id } })),
    );
    run.saveRecord('other', 'r5', 0, { id: 'r5', text: 'another stage' });
    const asked = ['r299', 'missing', ...ids.slice(0, 250), 'r5'];
    const got = run.recordsByIds<{ id: string; text: string }>('ask', asked);
    assert.equal(got.length, asked.length);
    assert.equal(got[1], undefined, 'an id without a record');
    assert.deepEqual(
      got,
      asked.map((id) => run.record('ask', id)),
      'what `record` gives for each id',
    );
    assert.equal(got[2]!.text.length, 3000);
    assert.deepEqual(run.recordsByIds('ask', []), []);
  });

  it("loads a stage's items in batches with loadMany, only those not yet done, falling back to load", async () => {
    const run = new RunStore(openDatabase(':memory:')).open(spec);
    const many = Array.from({ length: 400 }, (_, i) => ({ id: `i${i}`, n: i }));
    run.saveRecords(
      'ask',
      many.map((item, seq) => ({ itemId: item.id, seq, record: item })),
    );
    // Half of them judged already (a resumed stage).
    run.saveRecords(
      'judge',
      many.filter((i) => i.n % 2 === 0).map((item) => ({ itemId: item.id, seq: item.n, record: { id: item.id, done: 'before' } })),
    );
    const batches: string[][] = [];
    const single: string[] = [];
    const source = {
      ids: many.map((i) => i.id),
      load: (id: string) => (single.push(id), run.record<{ id: string; n: number }>('ask', id)!),
      // One item left to `load` (as when a batch misses one).
      loadMany: (ids: readonly string[]) => (
        batches.push([...ids]), run.recordsByIds<{ id: string; n: number }>('ask', ids).map((r) => (r?.id === 'i7' ? undefined : r))
      ),
    };
    await runStoredStage({
      run,
      stage: 'judge',
      items: source,
      concurrency: 16,
      progress: { quiet: true },
      work: async (r: { id: string; n: number }) => ({ record: { id: r.id, double: r.n * 2 } }),
    });
    assert.deepEqual(
      batches.flat(),
      many.filter((i) => i.n % 2 === 1).map((i) => i.id),
      'every item not done, once, in item order',
    );
    assert.ok(batches.length === 2 && batches[0]!.length === 128, `batches of ${batches.map((b) => b.length).join(', ')}`);
    assert.deepEqual(single, ['i7']);
    const judged = run.records<{ id: string; double?: number; done?: string }>('judge');
    assert.equal(judged.size, 400);
    assert.equal(judged.get('i399')!.double, 798);
    assert.equal(judged.get('i7')!.double, 14);
    assert.equal(judged.get('i8')!.done, 'before');
  });

  it('commits the records of work that needs no I/O in groups, and lets the event loop run meanwhile', async () => {
    const run = new RunStore(openDatabase(':memory:')).open(spec);
    const many = Array.from({ length: 3000 }, (_, i) => ({ id: `i${i}` }));
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    try {
      await runStoredStage({
        run,
        stage: 'rules',
        items: many,
        idOf: (i) => i.id,
        concurrency: 8,
        progress: { quiet: true },
        work: async (item) => {
          // A few milliseconds of synchronous work per 100 items, as a judge's rules take.
          if (Number(item.id.slice(1)) % 100 === 0) for (const end = performance.now() + 3; performance.now() < end; );
          return { record: { id: item.id } };
        },
      });
    } finally {
      clearInterval(timer);
    }
    assert.equal(run.recordIds('rules').length, 3000);
    // About 90 ms of work: without turns the timer would not run at all until the stage ends.
    assert.ok(turns >= 2, `timers ran ${turns} times while the stage worked`);
  });

  it('rejects duplicate item ids', async () => {
    const run = new RunStore(openDatabase(':memory:')).open(spec);
    await assert.rejects(
      runStage({
        run,
        stage: 's',
        items: [{ id: 'a' }, { id: 'a' }],
        idOf: (i) => i.id,
        concurrency: 1,
        work: async () => ({ record: 1 }),
        progress: { quiet: true },
      }),
      /duplicate item id "a" in stage s/,
    );
  });
});

describe('run leases', () => {
  function holder(db: ReturnType<typeof openDatabase>, runId: string, pid: number, host: string, expiresAt: number): void {
    const now = new Date().toISOString();
    db.prepare('INSERT OR REPLACE INTO run_leases (run_id, owner, pid, host, acquired_at, heartbeat_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      runId,
      `${pid}@${host}`,
      pid,
      host,
      now,
      now,
      expiresAt,
    );
  }

  it('renews its lease while held and releases it on close', async () => {
    const db = openDatabase(':memory:');
    const store = new RunStore(db, { leaseTtlMs: 200 });
    const run = store.open(spec);
    await run.acquireLease();
    const first = db.prepare('SELECT expires_at FROM run_leases WHERE run_id = ?').get(run.id) as { expires_at: number };
    await new Promise((r) => setTimeout(r, 150));
    const later = db.prepare('SELECT expires_at FROM run_leases WHERE run_id = ?').get(run.id) as { expires_at: number };
    assert.ok(later.expires_at > first.expires_at, 'heartbeat moved the expiry');
    assert.equal(store.leaseHolder(run.id)?.pid, process.pid);
    store.releaseLeases();
    assert.equal(store.leaseHolder(run.id), undefined);
  });

  it('refuses a live holder elsewhere, takes over an expired one, and runStage checks it first', async () => {
    const db = openDatabase(':memory:');
    const store = new RunStore(db);
    const run = store.open(spec);
    holder(db, run.id, 4242, 'other-host', Date.now() + 60_000);
    await assert.rejects(
      run.acquireLease(),
      (e: Error) => e.name === 'RunBusyError' && /run [0-9a-f]{16} is being worked on by another llmkb process \(pid 4242 on other-host/.test(e.message),
    );
    let worked = 0;
    await assert.rejects(
      runStage({ run, stage: 's', items, idOf: (i) => i.id, concurrency: 1, work: async () => ({ record: ++worked }), progress: { quiet: true } }),
      /being worked on/,
    );
    assert.equal(worked, 0, "no work done under another process's lease");
    holder(db, run.id, 4242, 'other-host', Date.now() - 1);
    await run.acquireLease();
    assert.equal(store.leaseHolder(run.id)?.pid, process.pid);
    store.releaseLeases();
  });
});
