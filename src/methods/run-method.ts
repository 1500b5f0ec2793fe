/**
 * The generic stage runner: one run of an evaluation method over a list of items, for a method
 * whose stages carry their own `run` (the reliability method's orchestration is `llmkb eval`,
 * src/methods/reliability/evaluate-model.ts). It checks every role's model kind before any call,
 * opens one resumable run in the store (a second call with the same inputs resumes it), runs the
 * stages in order, summarises, and writes `<stem>.<setting>.summary.json` and `.records.jsonl`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LlmkbError } from '../errors.js';
import type { ModelExecutor } from '../executor/model-executor.js';
import { checksumOfLines } from '../io/checksum.js';
import { writeFileAtomic } from '../io/files.js';
import { toJsonl } from '../io/jsonl.js';
import { requireKind } from '../providers/model-kinds.js';
import type { RunStore } from '../store/run-store.js';
import type { EvaluationMethod, StageContext } from './method.js';
import type { MethodSummary } from './method-summary.js';

export interface RunMethodOptions {
  /** Executors by role id; every required role needs one. */
  roles: Readonly<Record<string, ModelExecutor>>;
  items: readonly unknown[];
  runs: RunStore;
  /** How the model is shown (default: the model's id). */
  label?: string;
  setting?: string;
  seed?: number;
  /** Results folder; nothing is written without one. */
  outDir?: string;
  /** The stem of the result files (default: the label, made safe for a file name). */
  stem?: string;
}

export interface MethodRunResult {
  summary: MethodSummary;
  records: unknown[];
  runId: string;
  files: string[];
}

/** Checks that every role has a model of the kind it needs, before any model call. */
export function checkRoles(method: EvaluationMethod, roles: Readonly<Record<string, ModelExecutor>>): void {
  for (const role of method.roles) {
    const executor = roles[role.id];
    if (!executor) {
      if (role.required) throw new LlmkbError(`method "${method.id}" needs a model for role "${role.id}" (${role.kind})`, { hint: `Give one: ${role.description}.` });
      continue;
    }
    requireKind(executor.model, role.kind, role.id);
  }
  for (const id of Object.keys(roles)) {
    if (!method.roles.some((r) => r.id === id)) throw new LlmkbError(`method "${method.id}" has no role "${id}"`, { hint: `Its roles: ${method.roles.map((r) => r.id).join(', ')}.` });
  }
}

export async function runMethod(method: EvaluationMethod, options: RunMethodOptions): Promise<MethodRunResult> {
  const stages = method.stages;
  const missing = stages.filter((s) => !s.run).map((s) => s.id);
  if (missing.length > 0 || !method.summarize) {
    throw new LlmkbError(`method "${method.id}" does not run through the generic stage runner (stages without run: ${missing.join(', ') || 'none'}${method.summarize ? '' : '; no summarize'})`, { hint: 'Its own command runs it (the reliability method: llmkb eval).' });
  }
  checkRoles(method, options.roles);
  const subjectRole = method.roles.find((r) => r.required) ?? method.roles[0];
  const subject = subjectRole ? options.roles[subjectRole.id] : undefined;
  if (!subject) throw new LlmkbError(`method "${method.id}" has no model to run`);
  const setting = options.setting ?? method.settings?.[0] ?? 'default';
  const seed = options.seed ?? 42;
  const label = options.label ?? subject.model.modelId;
  const dataset = checksumOfLines(options.items, (i) => JSON.stringify(i));
  const run = options.runs.open({
    model: subject.model.cacheIdentity,
    dataset,
    setting,
    seed,
    params: { method: method.id, methodVersion: method.version, roles: Object.fromEntries(Object.entries(options.roles).map(([role, e]) => [role, e.model.cacheIdentity])) },
    label,
  });
  const records: Record<string, Map<string, unknown>> = {};
  for (const stage of stages) {
    const ctx: StageContext = { run, items: options.items, roles: options.roles, setting, seed, records };
    records[stage.id] = await stage.run!(ctx);
  }
  const summary = method.summarize({ records, items: options.items, model: label, modelIdentity: subject.model.cacheIdentity, setting, seed, runId: run.id, datasetChecksums: { questions: dataset } });
  const last = records[stages[stages.length - 1]!.id] ?? new Map();
  const finalRecords = [...last.values()];
  const files: string[] = [];
  if (options.outDir) {
    mkdirSync(options.outDir, { recursive: true });
    const stem = options.stem ?? (label.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[_.]+|_+$/g, '') || 'model');
    const base = join(options.outDir, `${stem}.${setting}`);
    writeFileAtomic(`${base}.records.jsonl`, toJsonl(finalRecords));
    writeFileAtomic(`${base}.summary.json`, `${JSON.stringify(summary, null, 2)}\n`);
    files.push(`${base}.summary.json`, `${base}.records.jsonl`);
  }
  return { summary, records: finalRecords, runId: run.id, files };
}
