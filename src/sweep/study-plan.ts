/**
 * `llmkb sweep STUDY --plan`: what would run, what is already done, and how many calls are still
 * to pay for, without loading a model, calling one or building an input. A run's progress is read
 * from the run store (the run of the same method, label, setting and seed); the calls it still
 * needs are each method's estimate (`EvaluationMethod.plan`), whose assumptions the plan prints.
 * Local model files are checked first: a missing one is named, not planned as "new".
 */
import { existsSync, statSync } from 'node:fs';
import { FileAccessError } from '../errors.js';
import { subjectRole } from '../methods/run-method.js';
import { specTraits } from '../providers/spec-traits.js';
import { methodIdOfStoredRun } from '../runs/stored-runs.js';
import type { RunStore } from '../store/run-store.js';
import { batchRoles, formatMoney, priced } from './study-cost.js';
import { inShard, studyJobs, type Shard } from './study-jobs.js';
import { LIST_PRICES_DATE, LIST_PRICES_SOURCE, listPrice } from './list-prices.js';
import type { Price, Study } from './study.js';

export interface PlannedRun {
  label: string;
  method: string;
  setting: string;
  state: 'done' | 'partly done' | 'new';
  runId: string | null;
  /** Items the run reads (null: unknown until its inputs are built). */
  items: number | null;
  /** Calls still to make per role, with typical tokens; null: unknown. */
  calls: Record<string, { calls: number; in: number; out: number }> | null;
}

export interface StudyPlan {
  runs: PlannedRun[];
  /** Per role: calls, tokens and money (null: unknown, or no price; for `model`, the priced models' runs only, see `unpriced`). */
  totals: Record<string, { calls: number | null; in: number | null; out: number | null; money: number | null }>;
  /** Models under test (labels) and roles priced by the default list prices (src/sweep/list-prices.ts): the study gives none. */
  listPriced: string[];
  /** Models under test (labels) with calls to pay for and no price, in the study or in the list. */
  unpriced: string[];
  how: string[];
  warnings: string[];
}

/** The local file a model spec reads (a GGUF, a mock replies file), if any, as its provider says. */
function localFile(spec: string): string | undefined {
  return specTraits(spec).files[0];
}

/** Refuses a study whose local model files are missing (exit 6), as the run itself would. */
export function checkModelFiles(study: Study): void {
  const entries = [
    ...study.models.map((m) => ({ what: `model "${m.label}"`, spec: m.entry.spec })),
    ...Object.entries(study.roles).map(([role, r]) => ({ what: `role "${role}"`, spec: typeof r.entry === 'string' ? r.entry : r.entry.spec })),
  ];
  for (const { what, spec } of entries) {
    const file = localFile(spec);
    if (file === undefined) continue;
    if (!existsSync(file))
      throw new FileAccessError(file, `${study.file}: ${what}: ${file} not found`, {
        code: 'ENOENT',
        hint: "Relative paths in a study are read from the study file's folder; fix the spec or put the file there.",
      });
    if (statSync(file).isDirectory())
      throw new FileAccessError(file, `${study.file}: ${what}: ${file} is a folder, not a model file`, { code: 'EISDIR', hint: 'Give the path of the file.' });
  }
}

export function planStudy(study: Study, runs: RunStore, shard?: Shard, batch = false): StudyPlan {
  checkModelFiles(study);
  const stored = runs.list();
  const planned: PlannedRun[] = [];
  const how = new Set<string>();
  const warnings = new Set<string>();
  for (const job of studyJobs(study).filter((j) => inShard(j, shard))) {
    const method = job.method.method;
    const match = stored.find(
      (r) =>
        methodIdOfStoredRun(r.spec) === method.id &&
        (r.spec.entry ?? method.id) === job.method.name &&
        (r.spec.label === job.model.label || (r.spec.labels ?? []).includes(job.model.label)) &&
        r.spec.setting === job.setting &&
        r.spec.seed === study.seed,
    );
    const stages = match ? new Map(match.stages.map((s) => [s.stage, { records: s.records, done: s.status === 'done' }])) : undefined;
    const estimate = method.plan?.({
      options: job.method.options,
      setting: job.setting,
      quick: study.quick,
      ...(study.limit === undefined ? {} : { limit: study.limit }),
      roles: new Set([subjectRole(method), ...Object.keys(study.roles)]),
      ...(stages ? { stages } : {}),
      baseDir: study.dir,
      label: job.model.label,
      ...(job.model.knowledgeCutoff ? { knowledgeCutoff: job.model.knowledgeCutoff } : {}),
    });
    for (const w of estimate?.warnings ?? []) warnings.add(w);
    if (estimate) how.add(`${method.id}: ${estimate.how}`);
    const allDone = match !== undefined && method.stages.every((s) => stages?.get(s.id)?.done);
    planned.push({
      label: job.model.label,
      method: job.method.name,
      setting: job.setting,
      state: allDone ? 'done' : match ? 'partly done' : 'new',
      runId: match?.id ?? null,
      items: estimate?.items ?? null,
      calls: estimate?.calls ?? (allDone ? {} : null),
    });
  }
  const roles = [...new Set([...studyJobs(study).map((j) => subjectRole(j.method.method)), ...planned.flatMap((r) => Object.keys(r.calls ?? {}))])];
  const totals: StudyPlan['totals'] = {};
  // Batch prices only for the roles --batch sends through the Batch API (not the embedder's or a scorer's calls).
  const batched = new Set(batch ? batchRoles(study) : []);
  const listPriced = new Set<string>();
  const unpriced = new Set<string>();
  // The study's price, else the default list price of a well-known hosted model (named in the plan).
  const priceOf = (name: string, given: Price | undefined, spec: string): Price | undefined => {
    if (given) return given;
    const listed = listPrice(spec);
    if (listed) listPriced.add(name);
    return listed;
  };
  for (const role of roles) {
    const known = planned.every((r) => r.calls !== null);
    const sum = (k: 'calls' | 'in' | 'out') => (known ? planned.reduce((a, r) => a + (r.calls?.[role]?.[k] ?? 0), 0) : null);
    let money: number | null = null;
    if (known && role === 'model') {
      // The priced models' runs, summed; the others named apart (a self-served model has no per-token price).
      for (const r of planned) {
        const c = r.calls![role];
        if (!c || c.calls === 0) continue;
        const model = study.models.find((x) => x.label === r.label)!;
        const p = priced(c.in, c.out, priceOf(r.label, model.price, model.entry.spec));
        if (p === null) unpriced.add(r.label);
        else money = (money ?? 0) + p;
      }
      if (money === null && unpriced.size === 0) money = 0;
    } else if (known) {
      const given = study.roles[role];
      money =
        sum('calls') === 0
          ? 0
          : priced(
              sum('in')!,
              sum('out')!,
              given ? priceOf(role, given.price, typeof given.entry === 'string' ? given.entry : given.entry.spec) : undefined,
              batched.has(role),
            );
    }
    totals[role] = { calls: sum('calls'), in: sum('in'), out: sum('out'), money };
  }
  return { runs: planned, totals, listPriced: [...listPriced], unpriced: [...unpriced], how: [...how], warnings: [...warnings] };
}

export function formatPlan(study: Study, plan: StudyPlan, shard?: Shard): string {
  const lines: string[] = [];
  const total = studyJobs(study).length;
  lines.push(
    `study ${study.name}: ${study.models.length} models x ${study.methods.map((m) => `${m.name} (${m.settings.length} setting${m.settings.length === 1 ? '' : 's'})`).join(' + ')} = ${total} runs${shard ? `; shard ${shard.index}/${shard.count}: ${plan.runs.length}` : ''}${study.quick ? ' (quick)' : ''}${study.limit !== undefined ? ` (limit ${study.limit})` : ''}`,
  );
  const w = Math.max(5, ...plan.runs.map((r) => r.label.length));
  const roles = Object.keys(plan.totals);
  lines.push(
    `${'model'.padEnd(w)}  ${'method'.padEnd(11)}  ${'setting'.padEnd(11)}  ${'items'.padStart(7)}  ${'state'.padEnd(11)}  calls to pay${roles.length ? `: ${roles.join(' / ')}` : ''}`,
  );
  for (const r of plan.runs)
    lines.push(
      `${r.label.padEnd(w)}  ${r.method.padEnd(11)}  ${r.setting.padEnd(11)}  ${String(r.items ?? 'unknown').padStart(7)}  ${r.state.padEnd(11)}  ${r.calls === null ? 'unknown (inputs not built yet)' : roles.map((role) => r.calls![role]?.calls ?? 0).join(' / ')}`,
    );
  const by = (s: PlannedRun['state']) => plan.runs.filter((r) => r.state === s).length;
  lines.push(`runs: ${by('done')} done (cached), ${by('partly done')} partly done, ${by('new')} new`);
  const show = (v: number | null) => (v === null ? 'unknown' : String(v));
  lines.push(`calls still to pay for (estimate): ${roles.map((role) => `${role} ${show(plan.totals[role]!.calls)}`).join(', ') || 'none'}`);
  lines.push(`tokens in/out (estimate): ${roles.map((role) => `${role} ${show(plan.totals[role]!.in)}/${show(plan.totals[role]!.out)}`).join(', ') || 'none'}`);
  const anyPrice = study.models.some((m) => m.price) || Object.values(study.roles).some((r) => r.price) || plan.listPriced.length > 0;
  if (anyPrice) {
    const source = `prices from the study${plan.listPriced.length ? `; for ${plan.listPriced.join(', ')}, which give none, the default list price of ${LIST_PRICES_DATE} (${LIST_PRICES_SOURCE}): set "price" in the study for yours` : ''}`;
    const names = plan.unpriced.length > 4 ? `${plan.unpriced.slice(0, 3).join(', ')} and ${plan.unpriced.length - 3} more` : plan.unpriced.join(', ');
    const unpriced = plan.unpriced.length
      ? ` (not counted: the runs of ${plan.unpriced.length} model${plan.unpriced.length === 1 ? '' : 's'} with no price in the study and no list price known, ${names}; add "price" to count them)`
      : '';
    const money = (role: string) => (plan.totals[role]!.calls === null ? 'unknown (calls unknown)' : formatMoney(plan.totals[role]!.money));
    lines.push(`money (estimate, ${source}): ${roles.map((role) => `${role} ${money(role)}${role === 'model' ? unpriced : ''}`).join(', ')}`);
  }
  if (plan.runs.some((r) => r.calls === null))
    lines.push('unknown: the inputs of some runs are built when the sweep starts (e.g. the data sets); run --plan again after that for their counts');
  for (const w of plan.warnings) lines.push(`warning: ${w}`);
  for (const h of plan.how) lines.push(`how: ${h}`);
  return `${lines.join('\n')}\n`;
}
