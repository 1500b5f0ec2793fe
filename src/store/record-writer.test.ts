import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from './database.js';
import { runStoredStage } from './run-stage.js';
import { BACKGROUND_WRITES_FROM, RunStore } from './run-store.js';

const dir = mkdtempSync(join(tmpdir(), 'llmkb-record-writer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const spec = { model: 'm', dataset: 'd', setting: 'zero-shot', seed: 1, label: 'writer' };
/** Short records stay JSON text, every seventh is long enough to be stored deflated (a BLOB). */
const items = Array.from({ length: 300 }, (_, i) => ({ id: `q${i}`, text: i % 7 === 0 ? `long ${i} `.repeat(400) : `short ${i}` }));
const work = async (item: { id: string; text: string }) => ({ record: { id: item.id, answer: item.text.toUpperCase() } });

describe('RecordWriter (a large stage saves its records in a worker thread)', () => {
  it('stores exactly what the main connection stores, read back the same way', async () => {
    const path = join(dir, 'same.sqlite');
    const db = openDatabase(path);
    const inWorker = new RunStore(db, { backgroundWritesFrom: 1 });
    const onMain = new RunStore(db, { backgroundWritesFrom: Number.POSITIVE_INFINITY });
    const a = inWorker.open(spec);
    const b = onMain.open({ ...spec, seed: 2 });
    await runStoredStage({ run: a, stage: 'ask', items, idOf: (i) => i.id, concurrency: 8, progress: { quiet: true }, work });
    await runStoredStage({ run: b, stage: 'ask', items, idOf: (i) => i.id, concurrency: 8, progress: { quiet: true }, work });
    assert.equal(a.stageStatus('ask'), 'done');
    assert.equal(inWorker.writesInBackground, true);
    assert.equal(onMain.writesInBackground, false);
    assert.deepEqual([...a.entries('ask')], [...b.entries('ask')]);
    assert.equal([...a.entries('ask')].length, items.length);
    // Byte for byte, deflated records included.
    const rows = (runId: string) => db.prepare('SELECT item_id, seq, record FROM run_records WHERE run_id = ? ORDER BY seq').all(runId);
    assert.deepEqual(rows(a.id), rows(b.id));
    assert.ok((db.prepare('SELECT count(*) FROM run_records WHERE run_id = ? AND typeof(record) = ?').pluck().get(a.id, 'blob') as number) > 0);
    await inWorker.closeWriter();
    db.close();
  });

  it('only for stages of BACKGROUND_WRITES_FROM records or more, and never for a store in memory', async () => {
    assert.ok(BACKGROUND_WRITES_FROM > 1000);
    const memory = new RunStore(openDatabase(':memory:'), { backgroundWritesFrom: 1 });
    const run = memory.open(spec);
    await runStoredStage({ run, stage: 'ask', items, idOf: (i) => i.id, concurrency: 8, progress: { quiet: true }, work });
    assert.equal([...run.entries('ask')].length, items.length);
    assert.equal(memory.writesInBackground, false);
    const small = new RunStore(openDatabase(join(dir, 'small.sqlite')));
    const smallRun = small.open(spec);
    await runStoredStage({ run: smallRun, stage: 'ask', items, idOf: (i) => i.id, concurrency: 8, progress: { quiet: true }, work });
    assert.equal(small.writesInBackground, false);
  });

  it("fails the stage with the writer's error, keeps the batches written before it, and resumes", async () => {
    const path = join(dir, 'failing.sqlite');
    const db = openDatabase(path);
    // The store refuses one item's record, as a full disk or a read-only file would refuse a batch.
    db.exec("CREATE TRIGGER refuse BEFORE INSERT ON run_records WHEN NEW.item_id = 'q250' BEGIN SELECT RAISE(ABORT, 'no room for q250'); END");
    const runs = new RunStore(db, { backgroundWritesFrom: 1 });
    const run = runs.open(spec);
    let made = 0;
    const counting = async (item: { id: string; text: string }) => {
      made++;
      // Records finish in separate commit intervals, so several batches are written.
      if (Number(item.id.slice(1)) % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 250));
      return work(item);
    };
    await assert.rejects(runStoredStage({ run, stage: 'ask', items, idOf: (i) => i.id, concurrency: 1, progress: { quiet: true }, work: counting }), (error: Error & { code?: string }) => {
      assert.match(error.message, /no room for q250/);
      assert.equal(error.code, 'SQLITE_CONSTRAINT_TRIGGER');
      return true;
    });
    assert.equal(run.stageStatus('ask'), 'running');
    const kept = run.recordIds('ask');
    assert.ok(kept.length >= 100 && kept.length < items.length, `kept ${kept.length}`);
    assert.ok(!kept.includes('q250'));
    db.exec('DROP TRIGGER refuse');
    made = 0;
    await runStoredStage({ run, stage: 'ask', items, idOf: (i) => i.id, concurrency: 4, progress: { quiet: true }, work: counting });
    assert.equal(made, items.length - kept.length);
    assert.equal(run.stageStatus('ask'), 'done');
    assert.equal(run.recordIds('ask').length, items.length);
    assert.equal(runs.writesInBackground, true);
    await runs.closeWriter();
    assert.equal(runs.writesInBackground, false);
    db.close();
  });

  it('closeWriter waits for the batches sent; an idle writer never keeps the process alive', async () => {
    const path = join(dir, 'exit.sqlite');
    // A library user who never closes anything: the process still ends, with every record committed.
    const script = `
      import { openDatabase } from './src/store/database.ts';
      import { RunStore } from './src/store/run-store.ts';
      import { runStoredStage } from './src/store/run-stage.ts';
      const runs = new RunStore(openDatabase(${JSON.stringify(path)}), { backgroundWritesFrom: 1 });
      const run = runs.open(${JSON.stringify(spec)});
      const items = Array.from({ length: 50 }, (_, i) => ({ id: 'q' + i }));
      await runStoredStage({ run, stage: 'ask', items, idOf: (i) => i.id, concurrency: 4, progress: { quiet: true }, work: async (i) => ({ record: i }) });
      console.log('done');
    `;
    const started = Date.now();
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: join(import.meta.dirname, '..', '..'), encoding: 'utf8', timeout: 30_000 });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'done');
    assert.ok(Date.now() - started < 20_000);
    const db = openDatabase(path);
    assert.equal(db.prepare('SELECT count(*) FROM run_records').pluck().get(), 50);
    db.close();
  });
});
