/**
 * The runs of a study, in one fixed order (models as listed, then methods, then settings), and
 * how `--shard i/n` splits them between machines: the job at position k goes to shard
 * (k mod n) + 1; with `cluster: { split: model }` the model at position k goes there with all its
 * runs (one server start per model). The split depends on the study file only, so every machine
 * computes the same one, and each (model, method, setting) run is done on exactly one machine.
 */
import { LlmkbError } from '../errors.js';
import { specTraits } from '../providers/spec-traits.js';
import { resultFileStem } from '../io/result-file-stem.js';
import type { Study, StudyMethod } from './study.js';

export interface StudyJob {
  /** Position in the study's order (0-based). */
  index: number;
  /** What the split deals out: the job's position, or with `split: model` its model's. */
  unit: number;
  model: Study['models'][number];
  method: StudyMethod;
  setting: string;
}

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export function studyJobs(study: Study): StudyJob[] {
  const jobs: StudyJob[] = [];
  const byModel = study.cluster?.split === 'model';
  for (const [m, model] of study.models.entries())
    for (const method of study.methods)
      for (const setting of method.settings) jobs.push({ index: jobs.length, unit: byModel ? m : jobs.length, model, method, setting });
  return jobs;
}

/** `--shard 2/3`. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) {
    throw new LlmkbError(`--shard ${text}: must be i/n with 1 <= i <= n, e.g. 2/3`, {
      hint: 'Run the same study with --shard 1/3, --shard 2/3 and --shard 3/3 on three machines, then `llmkb merge` their results.',
    });
  }
  return { index, count };
}

/** How many shards a study splits into at most (runs, or models with `split: model`). */
export function shardUnits(study: Study): number {
  return study.cluster?.split === 'model' ? study.models.length : studyJobs(study).length;
}

export function inShard(job: StudyJob, shard: Shard | undefined): boolean {
  return shard === undefined || job.unit % shard.count === shard.index - 1;
}

/** In-process models (GGUF) run one at a time; models behind servers run side by side (the provider says which is which). */
export function isInProcess(model: Study['models'][number]): boolean {
  return specTraits(model.entry.spec).inProcess;
}

/**
 * The folder a job's results go to, inside the study's results folder: one per model, and in it
 * one per `methods:` entry (by its name) when the study has several (their settings may share names).
 */
export function jobFolder(study: Study, job: Pick<StudyJob, 'model' | 'method'>): string {
  const model = resultFileStem(job.model.label);
  return study.methods.length > 1 ? `${model}/${job.method.name}` : model;
}
