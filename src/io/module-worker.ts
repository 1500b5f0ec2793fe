import { Worker } from 'node:worker_threads';

/**
 * A worker thread running the module `name` that sits beside `base` (the caller's
 * `import.meta.url`): `name.js` when built; from source (tests, benchmarks under tsx) `name.ts`,
 * loaded through tsx's loader, which a worker thread does not inherit from `--import tsx` on
 * Node 20.
 */
export function startModuleWorker(base: string, name: string, workerData: unknown): Worker {
  if (!base.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, base), { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL(`./${name}.ts`, base).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`, { eval: true, workerData });
}
