/**
 * Runs the llmkb CLI from source in this process, then prints its wall time, CPU time (all
 * threads: steadier than wall time on a shared machine) and peak RSS to stderr (for benches).
 */
import { main } from '../../src/cli/main.js';

const started = performance.now();
const code = await main(process.argv);
const cpu = process.cpuUsage();
process.stderr.write(
  `bench: exit ${code}, ${((performance.now() - started) / 1000).toFixed(2)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`,
);
process.exitCode = code;
