#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// Flat memory over a long run (issue 13; measured with `npm run bench:eval-memory`): V8 lets its
// heap grow to about five times what is live (~30 MB) over tens of thousands of short-lived model
// calls, so peak RSS rose with the number of questions (281 MB at 6,000). Growing the heap by at
// most a quarter of what is live after each full collection keeps it near the live size (heap
// 82 MB at 300 questions and 81 MB at 6,000) at no measured cost in time. Read at every
// collection, so it applies from here on; a value given in NODE_OPTIONS or on node's command
// line wins.
const nodeOptions = [process.env.NODE_OPTIONS ?? '', ...process.execArgv];
if (!nodeOptions.some((option) => option.includes('heap-growing-percent'))) setFlagsFromString('--heap-growing-percent=25');
// And the young generation, where every model call's garbage goes, stops growing at 16 MiB
// (Node 24 grows it to 128 MiB): see capYoungGeneration. A size given to node wins.
if (!nodeOptions.some((option) => /semi-space/.test(option))) (await import('../dist/io/young-generation.js')).capYoungGeneration();

const { main } = await import('../dist/cli/main.js');
const code = await main(process.argv);
process.exitCode = code;
// A finished command never hangs on a leftover handle (e.g. the socket of a download that was
// given up on): once stdout and stderr are flushed, exit shortly even if something is still open.
let unflushed = 2;
const flushed = () => {
  if (--unflushed === 0) setTimeout(() => process.exit(code), 1000).unref();
};
process.stdout.write('', flushed);
process.stderr.write('', flushed);
