/**
 * The viewer's runs list (`/`) over a store of ~50 runs, the first load (a new view index) and
 * later ones: the store alone (no summary files: the list computes each run's metrics from its
 * items), and the store with its results folder (each run's summary file, as `llmkb eval --out`
 * writes it, found by its run id), against a bare baseline: a node:http server that, per
 * request, reads the same summary files and renders a table of their headline metrics (what the
 * list shows, with nothing else).
 *
 * Each load is one request from this process to a server in this process; a later load comes
 * more than a second after the one before (the viewer lists runs again at most once a second, as
 * a user reloading would see).
 *
 *   node --import tsx bench/viewer-runs-page.ts [RUNS] [ITEMS] [LATER]
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startViewServer } from '../src/view/view-server.js';
import { ViewIndex } from '../src/view/view-index.js';
import { writeFixtureStore } from '../test/support/view-fixture.js';

const runs = Number(process.argv[2] ?? 51);
const items = Number(process.argv[3] ?? 300);
const later = Number(process.argv[4] ?? 7);
const dir = mkdtempSync(join(tmpdir(), 'llmkb-bench-view-runs-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One load of the runs list: its wall time, and the CPU time of this process (server and client) meanwhile, in ms. */
async function load(url: string): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const res = await fetch(`${url}/`);
  await res.text();
  if (res.status !== 200) throw new Error(`${url}/: ${res.status}`);
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
}

type Loads = { first: { wall: number; cpu: number }; later: Array<{ wall: number; cpu: number }> };

/** The first load on a new index, then `later` loads more than a second apart: ms. */
async function timeViewer(options: { store?: string; resultsDir?: string }, name: string): Promise<Loads> {
  const view = await startViewServer({ ...options, indexFile: join(dir, `${name}-index.sqlite`), port: 0 });
  try {
    const first = await load(view.url);
    const after: Loads['later'] = [];
    for (let i = 0; i < later; i++) {
      await sleep(1050);
      after.push(await load(view.url));
    }
    return { first, later: after };
  } finally {
    await view.close();
  }
}

/** The bare baseline: every request reads the summary files and renders their headline metrics. */
async function timeBare(resultsDir: string): Promise<Loads> {
  const server = createServer((_req, res) => {
    const rows: string[] = [];
    for (const file of readdirSync(resultsDir)
      .filter((f) => f.endsWith('.summary.json'))
      .sort()) {
      const s = JSON.parse(readFileSync(join(resultsDir, file), 'utf8')) as {
        model: string;
        setting: string;
        metrics: Record<string, number | null>;
        intervals: Record<string, [number, number] | null>;
        metricDefs: Array<{ id: string; headline?: boolean }>;
      };
      const cells = s.metricDefs
        .filter((d) => d.headline)
        .map((d) => `<td>${((s.metrics[d.id] ?? 0) * 100).toFixed(2)}<br>${JSON.stringify(s.intervals[d.id])}</td>`);
      rows.push(`<tr><th>${s.model}</th><td>${s.setting}</td>${cells.join('')}</tr>`);
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><table>${rows.join('')}</table>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const first = await load(url);
    const after: Loads['later'] = [];
    for (let i = 0; i < later; i++) {
      await sleep(1050);
      after.push(await load(url));
    }
    return { first, later: after };
  } finally {
    await new Promise((r) => server.close(r));
  }
}

try {
  const store = join(dir, 'store.sqlite');
  const results = join(dir, 'results');
  await writeFixtureStore(store, {
    runs: Array.from({ length: runs }, (_, i) => ({ label: `model-${i}`, setting: 'zero-shot', seed: i + 1, correctShare: 0.2 + (i % 5) / 10 })),
    items,
    mcqs: 5,
  });
  // Each run's summary file (with its intervals and run id), as `eval --out` writes it beside the store.
  mkdirSync(results);
  const index = new ViewIndex({ store, indexFile: join(dir, 'summaries-index.sqlite') });
  for (const run of index.runs())
    writeFileSync(join(results, `${run.label}.${run.setting}.summary.json`), `${JSON.stringify((await index.summary(run))!.raw, null, 2)}\n`);
  index.close();
  const lines: string[] = [`${runs} runs of ${items} items, load average ${(await import('node:os')).loadavg()[0]!.toFixed(2)}`];
  const ms = (v: number) => v.toFixed(0).padStart(5);
  const row = (what: string, r: Loads) => {
    const wall = r.later.map((l) => l.wall);
    lines.push(
      `${what.padEnd(44)} first ${ms(r.first.wall)} ms (CPU ${ms(r.first.cpu)})   later ${ms(median(wall))} ms (${Math.min(...wall).toFixed(0)}-${Math.max(...wall).toFixed(0)}; CPU ${ms(median(r.later.map((l) => l.cpu)))})`,
    );
  };
  row('viewer: the store alone (no summary files)', await timeViewer({ store }, 'store'));
  row('viewer: the store and its summary files', await timeViewer({ store, resultsDir: results }, 'both'));
  row('bare: read the summary files, one table', await timeBare(results));
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
