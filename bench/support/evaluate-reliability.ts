/**
 * The reliability method run as `llmkb eval` runs it (the generic runner: prepare once, then one
 * run per setting), for the benches that time a whole evaluation in process.
 */
import type { ModelExecutor } from '../../src/executor/model-executor.js';
import { getMethod } from '../../src/methods/registry.js';
import { prepareMethod, runMethod, type MethodRunResult } from '../../src/methods/run-method.js';
import type { RunStore } from '../../src/store/run-store.js';

export interface BenchEvaluation {
  model: ModelExecutor;
  judge?: ModelExecutor;
  distractor?: ModelExecutor;
  settings: string[];
  runs: RunStore;
  dataDir: string;
  outDir: string;
  cacheDir: string;
  seed: number;
  mcqs: number;
  label?: string;
}

export async function evaluateReliability(o: BenchEvaluation): Promise<MethodRunResult[]> {
  const method = getMethod('reliability');
  const others = { ...(o.judge ? { judge: o.judge } : {}), ...(o.distractor ? { distractor: o.distractor } : {}) };
  const prepared = await prepareMethod(method, {
    options: { data: o.dataDir, mcqs: o.mcqs },
    roles: others,
    seed: o.seed,
    cacheDir: o.cacheDir,
    settings: o.settings,
  });
  const results: MethodRunResult[] = [];
  for (const setting of o.settings)
    results.push(
      await runMethod(method, { roles: { model: o.model, ...others }, runs: o.runs, prepared, setting, label: o.label ?? 'bench', outDir: o.outDir }),
    );
  return results;
}
