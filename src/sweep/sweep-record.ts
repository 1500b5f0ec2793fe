/**
 * What a sweep writes down of itself (`sweep.json`, or `sweep.shard-I-of-N.json`): the record's
 * shape and each job's result, the study's fingerprint (what `llmkb merge` compares), its title,
 * and where each job's result files are.
 */
import { relative } from 'node:path';
import type { RunNotices } from '../analysis/run-notices.js';
import { runResultFiles } from '../io/result-files.js';
import type { RoleCost, RoleTokens } from './study-cost.js';
import { jobFolder, type Shard, type StudyJob } from './study-jobs.js';
import type { RunFiles } from './study-report.js';
import type { Study, StudyMethod } from './study.js';

export interface SweepJobResult {
  label: string;
  method: string;
  setting: string;
  status: 'done' | 'failed' | 'other shard';
  runId?: string;
  summary?: string;
  error?: string;
  /** What to know before reading the run's numbers (src/analysis/run-notices.ts). */
  notices?: RunNotices;
}

/** `sweep.json` (or `sweep.shard-I-of-N.json`): what a sweep ran, on which shard, and what it cost. */
export interface SweepRecord {
  schema: 'llmkb-sweep-v1';
  study: { file: string; name: string; checksum: string };
  /** What the results depend on: `llmkb merge` refuses shards whose fingerprints differ. */
  fingerprint: string;
  shard: Shard | null;
  command?: string;
  startedAt: string;
  finishedAt: string;
  llmkbVersion: string;
  /** Every run of the study in the study's order, with where its files are (relative to the results folder). */
  runs: RunFiles[];
  title: string;
  suffix: string;
  jobs: SweepJobResult[];
  /** Calls per role of the runs this invocation ran, over every process that worked on them (a resumed run counts what a killed process paid for too). */
  tokens: Record<string, RoleTokens>;
  /** The same, made by this invocation alone. */
  tokensHere: Record<string, RoleTokens>;
  cost: Record<string, RoleCost>;
  /** Models served by several replicas: calls each replica answered and failed over this invocation's runs, times taken out. */
  replicas?: Record<string, Array<{ url: string; served: number; failed: number; trips: number }>>;
  /** `--batch`: the batches submitted, per role model. */
  batches?: Array<{ model: string; id: string; requests: number; status: string; failed: number }>;
}

/** The study's choices that make its results what they are (not where models are served, nor prices; paths relative to the study). */
export function studyFingerprint(study: Study): string {
  const roles = Object.fromEntries(Object.entries(study.roles).map(([role, r]) => [role, typeof r.entry === 'string' ? r.entry : r.entry.spec]));
  const relativeOption = (m: StudyMethod, key: string, value: unknown) =>
    m.method.options?.find((o) => o.key === key)?.path && typeof value === 'string' ? relative(study.dir, value) : value;
  return JSON.stringify({
    models: study.models.map((m) => ({ label: m.label, params: m.params ?? null, tuning: m.tuning ?? null, family: m.family ?? null })),
    methods: study.methods.map((m) => ({
      id: m.method.id,
      ...(m.name === m.method.id ? {} : { name: m.name }),
      settings: m.settings,
      options: Object.fromEntries(Object.entries(m.options).map(([k, v]) => [k, relativeOption(m, k, v)])),
    })),
    quick: study.quick,
    limit: study.limit ?? null,
    seed: study.seed,
    roles,
  });
}

export function studyTitle(study: Study): string {
  return `llmkb study: ${study.name}`;
}

/** Result files of a job, relative to the results folder (`suffix`: `.limit-N` or ''). */
export function jobFiles(study: Study, job: StudyJob, suffix: string): RunFiles {
  const folder = jobFolder(study, job);
  return {
    label: job.model.label,
    method: job.method.method.id,
    ...(job.method.name === job.method.method.id ? {} : { entry: job.method.name }),
    setting: job.setting,
    base: relative('.', runResultFiles(folder, job.model.label, job.setting, suffix).base),
  };
}
