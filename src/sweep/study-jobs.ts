/**
 * The runs of a study, in one fixed order (models as listed, then methods, then settings), and
 * how `--shard i/n` splits them between machines: the job at position k goes to shard
 * (k mod n) + 1. The split depends on the study file only, so every machine computes the same
 * one, and each (model, setting) run is done on exactly one machine.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATASET_FILES } from '../methods/reliability/data/build-datasets.js';
import { LlmkbError } from '../errors.js';
import { resultFileStem } from '../io/result-file-stem.js';
import { parseModelSpec } from '../providers/model-spec.js';
import type { Study } from './study.js';

export interface StudyJob {
  /** Position in the study's order (0-based). */
  index: number;
  model: Study['models'][number];
  method: Study['methods'][number];
  setting: Study['settings'][number];
}

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export function studyJobs(study: Study): StudyJob[] {
  const jobs: StudyJob[] = [];
  for (const model of study.models) for (const method of study.methods) for (const setting of study.settings) jobs.push({ index: jobs.length, model, method, setting });
  return jobs;
}

/** `--shard 2/3`. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) {
    throw new LlmkbError(`--shard ${text}: must be i/n with 1 <= i <= n, e.g. 2/3`, { hint: 'Run the same study with --shard 1/3, --shard 2/3 and --shard 3/3 on three machines, then `llmkb merge` their results.' });
  }
  return { index, count };
}

export function inShard(job: StudyJob, shard: Shard | undefined): boolean {
  return shard === undefined || job.index % shard.count === shard.index - 1;
}

/** In-process models (GGUF) run one at a time; models behind servers run side by side. */
export function isInProcess(model: Study['models'][number]): boolean {
  return parseModelSpec(model.entry.spec).provider === 'llama';
}

/** The folder a model's results go to, inside the study's results folder. */
export function modelFolder(label: string): string {
  return resultFileStem(label);
}

/** Questions a run of the study asks (after `quick`, before `limit`), from the built data sets. */
export function questionCount(study: Study): number {
  const lines = (f: string) => readFileSync(join(study.data, f), 'utf8').split('\n').filter((l) => l.trim() !== '').length;
  const seen = lines(DATASET_FILES.seenqa);
  const unseen = lines(DATASET_FILES.unseenqa);
  return study.quick ? Math.min(50, seen) + Math.min(50, unseen) : seen + unseen;
}

/** `.limit-N` when `limit` cuts the question set (as `eval --limit`); the question count is known only once the data sets exist. */
export function resultSuffix(study: Study, questions: number | undefined): string {
  return study.limit !== undefined && (questions === undefined || study.limit < questions) ? `.limit-${study.limit}` : '';
}
