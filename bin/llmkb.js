#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

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
