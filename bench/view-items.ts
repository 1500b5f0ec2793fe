/**
 * `npm run bench:view`: how long `llmkb view` takes to open the item list of a 10,000-item run,
 * the first time (the run's items imported into the view index: SQL over the store's records,
 * or the records file streamed) and after (paged queries only), with filters and a text search,
 * and the server's memory (it must not grow with the run). The server runs in its own process,
 * as `llmkb view` does; this process writes the runs (through the run store) and times requests.
 *
 *   npm run bench:view -- [ITEMS]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startViewServer } from '../src/view/view-server.js';
import { connerRecords, writeConnerResults } from '../test/support/conner-fixture.js';
import { writeFixtureResults, writeFixtureStore } from '../test/support/view-fixture.js';

if (process.argv[2] === '--serve') {
  const view = await startViewServer({ store: join(process.argv[3]!, 'store.sqlite'), resultsDir: join(process.argv[3]!, 'results'), port: 0 });
  process.stdout.write(`${view.url}\n`);
} else {
  const items = Number(process.argv[2] ?? 10_000);
  const dir = mkdtempSync(join(tmpdir(), 'llmkb-bench-view-'));
  // Consistency records as big as real ones: 20 MCQs with distractor-length options.
  const [run] = await writeFixtureStore(join(dir, 'store.sqlite'), {
    runs: [{ label: 'bench', setting: 'zero-shot', seed: 3, correctShare: 0.4 }],
    items,
    mcqs: 20,
    distractorText: ', a plausible but wrong answer of about the length a distractor model writes',
  });
  writeFixtureResults(join(dir, 'results'), 'bench-file', 'four-shot', items);
  // A CONNER run as `llmkb conner score --out` writes it (records with sentences, evidence, NLI vectors).
  writeConnerResults(join(dir, 'results'), connerRecords(items, [['bench-conner', 0.6]]), 200);
  const child = spawn(process.execPath, ['--import', 'tsx', process.argv[1]!, '--serve', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const runs = (await (await fetch(`${url}/api/runs`)).json()) as Array<{ key: string; kind: string; label: string }>;
  const fileRun = runs.find((r) => r.kind === 'file' && r.label === 'bench-file')!;
  const connerRun = runs.find((r) => r.label === 'bench-conner')!;
  async function time(path: string): Promise<{ ms: number; bytes: number }> {
    const started = performance.now();
    const res = await fetch(`${url}${path}`);
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return { ms: performance.now() - started, bytes: body.length };
  }
  const rssBefore = rss();
  const lines: string[] = [];
  const row = (what: string, r: { ms: number; bytes: number }) =>
    lines.push(`${what.padEnd(60)} ${r.ms.toFixed(0).padStart(6)} ms  ${(r.bytes / 1024).toFixed(0).padStart(4)} KiB`);
  row(`store run, ${items} items: item list, first open (import)`, await time(`/runs/${run!.id}/items`));
  row('store run: item list again', await time(`/runs/${run!.id}/items`));
  row('store run: page 150', await time(`/runs/${run!.id}/items?page=150`));
  row('store run: label=wrong, source=nq, consistency >= 0.1', await time(`/runs/${run!.id}/items?label=wrong&source=nq&cmin=0.1`));
  row('store run: first text search "rivers" (builds FTS5)', await time(`/runs/${run!.id}/items?q=rivers`));
  row('store run: text search "kings"', await time(`/runs/${run!.id}/items?q=kings`));
  row('store run: an item page', await time(`/runs/${run!.id}/items/seen-${2 * Math.floor(items / 4)}`));
  row(`records file, ${items} items: item list, first open (import)`, await time(`/runs/${fileRun.key}/items`));
  row('records file: item list again', await time(`/runs/${fileRun.key}/items`));
  row(`CONNER records file, ${items} items: item list, first open (import)`, await time(`/runs/${connerRun.key}/items`));
  row('CONNER: item list again', await time(`/runs/${connerRun.key}/items`));
  row('CONNER: factuality label = non-verified', await time(`/runs/${connerRun.key}/items?label=non-verified`));
  row('CONNER: first text search "everest" (builds FTS5)', await time(`/runs/${connerRun.key}/items?q=everest`));
  row('CONNER: an item page', await time(`/runs/${connerRun.key}/items/nq%3A${Math.floor(items / 2)}`));
  row('CONNER: run page', await time(`/runs/${connerRun.key}`));
  row('run page, first (summary with 1000 bootstrap resamples, charts)', await time(`/runs/${run!.id}`));
  row('run page again', await time(`/runs/${run!.id}`));
  const rssAfter = rss();
  process.stdout.write(
    `llmkb view, ${items}-item runs (Node ${process.version})\n${lines.join('\n')}\nserver RSS: ${rssBefore.toFixed(0)} MiB at start, ${rssAfter.toFixed(0)} MiB after all of the above\n`,
  );
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
