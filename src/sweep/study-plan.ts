/**
 * `llmkb sweep STUDY --plan`: what would run, what is already done, and how many calls are still
 * to pay for, without loading a model or calling one.
 *
 * How the calls are counted (an estimate, said so in the output): a run's progress is read from
 * the run store (the run with the same label, setting, seed and parameters); the items it has not
 * done yet cost, per item, 1 answer (model), 1 judge call per seen question when a judge LLM is
 * set, 1 distractor call per answer when a distractor LLM is set, and `mcqs` MCQ answers (model)
 * per answer, counting every answer as correct or wrong (an upper bound: uninformative answers
 * get no MCQs). A run not in the store counts in full, although calls another run already made
 * (the same model under another label) would come from the cache. Tokens per call are typical
 * sizes of the paper's prompts (below), not measured ones.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATASET_FILES } from '../methods/reliability/data/build-datasets.js';
import { ANSWER_MAX_TOKENS } from '../methods/reliability/defaults.js';
import type { RunStore } from '../store/run-store.js';
import { formatMoney, priced } from './study-cost.js';
import { inShard, questionCount, studyJobs, type Shard } from './study-jobs.js';
import type { Study } from './study.js';

/** Typical tokens per call (prompt in, answer out) by kind of call: the estimate's assumption. */
export const TYPICAL_TOKENS = {
  answerZeroShot: { in: 40, out: 12 },
  answerFewShot: { in: 220, out: 12 },
  mcq: { in: 160, out: 2 },
  judge: { in: 220, out: 2 },
  distractor: { in: 120, out: 60 },
} as const;

export interface PlannedRun {
  label: string;
  method: string;
  setting: string;
  state: 'done' | 'partly done' | 'new';
  runId: string | null;
  /** Calls still to make, per role. */
  calls: Record<'model' | 'judge' | 'distractor', number>;
  tokens: Record<'model' | 'judge' | 'distractor', { in: number; out: number }>;
}

export interface StudyPlan {
  runs: PlannedRun[];
  questions: number | null;
  totals: Record<'model' | 'judge' | 'distractor', { calls: number; in: number; out: number; money: number | null }>;
}

export function planStudy(study: Study, runs: RunStore, shard?: Shard, batch = false): StudyPlan {
  const built = Object.values(DATASET_FILES).every((f) => existsSync(join(study.data, f)));
  const count = built ? questionCount(study) : study.quick ? 100 : null;
  const n = count === null ? null : study.limit !== undefined ? Math.min(study.limit, count) : count;
  const seenShare = built ? seenFraction(study) : 0.5;
  const mcqs = study.mcqs ?? (study.quick ? 5 : 20);
  const maxTokens = study.maxTokens ?? ANSWER_MAX_TOKENS;
  const stored = runs.list();
  const planned: PlannedRun[] = [];
  for (const job of studyJobs(study).filter((j) => inShard(j, shard))) {
    const match = stored.find((r) => {
      const p = (r.spec.params ?? {}) as Record<string, unknown>;
      return r.spec.label === job.model.label && r.spec.setting === job.setting && r.spec.seed === study.seed && p.kind === 'eval' && p.maxTokens === maxTokens && p.mcqs === mcqs && (p.limit ?? undefined) === (count !== null && study.limit !== undefined && study.limit < count ? study.limit : undefined);
    });
    const stage = (name: string) => match?.stages.find((s) => s.stage === name);
    const done = (name: string) => stage(name)?.status === 'done';
    const left = (name: string) => (n === null ? 0 : done(name) ? 0 : Math.max(0, n - (stage(name)?.records ?? 0)));
    const asks = left('ask');
    const judged = study.roles.judge ? Math.round(left('judge') * seenShare) : 0;
    const consistency = left('consistency');
    const calls = { model: asks + consistency * mcqs, judge: judged, distractor: study.roles.distractor ? consistency : 0 };
    const answer = job.setting === 'zero-shot' ? TYPICAL_TOKENS.answerZeroShot : TYPICAL_TOKENS.answerFewShot;
    const tokens = {
      model: { in: asks * answer.in + consistency * mcqs * TYPICAL_TOKENS.mcq.in, out: asks * Math.min(maxTokens, answer.out) + consistency * mcqs * TYPICAL_TOKENS.mcq.out },
      judge: { in: judged * TYPICAL_TOKENS.judge.in, out: judged * TYPICAL_TOKENS.judge.out },
      distractor: { in: calls.distractor * TYPICAL_TOKENS.distractor.in, out: calls.distractor * TYPICAL_TOKENS.distractor.out },
    };
    const allDone = match !== undefined && ['ask', 'judge', 'consistency'].every(done);
    planned.push({ label: job.model.label, method: job.method, setting: job.setting, state: allDone ? 'done' : match ? 'partly done' : 'new', runId: match?.id ?? null, calls, tokens });
  }
  const totals = {} as StudyPlan['totals'];
  for (const role of ['model', 'judge', 'distractor'] as const) {
    const calls = planned.reduce((a, r) => a + r.calls[role], 0);
    const tin = planned.reduce((a, r) => a + r.tokens[role].in, 0);
    const tout = planned.reduce((a, r) => a + r.tokens[role].out, 0);
    let money: number | null;
    if (role === 'model') {
      money = 0;
      for (const r of planned) {
        const m = study.models.find((x) => x.label === r.label)!;
        const p = priced(r.tokens.model.in, r.tokens.model.out, m.price);
        money = r.calls.model === 0 ? money : p === null || money === null ? null : money + p;
      }
    } else {
      money = calls === 0 ? 0 : priced(tin, tout, study.roles[role]?.price, batch);
    }
    totals[role] = { calls, in: tin, out: tout, money };
  }
  return { runs: planned, questions: n, totals };
}

/** The share of seen questions in a run (only those go to the judge LLM). */
function seenFraction(study: Study): number {
  const lines = (f: string) => readFileSync(join(study.data, f), 'utf8').split('\n').filter((l) => l.trim() !== '').length;
  let seen = lines(DATASET_FILES.seenqa);
  let unseen = lines(DATASET_FILES.unseenqa);
  if (study.quick) [seen, unseen] = [Math.min(50, seen), Math.min(50, unseen)];
  return seen + unseen === 0 ? 0.5 : seen / (seen + unseen);
}

export function formatPlan(study: Study, plan: StudyPlan, shard?: Shard): string {
  const lines: string[] = [];
  const total = studyJobs(study).length;
  lines.push(`study ${study.name}: ${study.models.length} models x ${study.methods.length} method(s) x ${study.settings.length} settings = ${total} runs${shard ? `; shard ${shard.index}/${shard.count}: ${plan.runs.length}` : ''}`);
  lines.push(`questions per run: ${plan.questions ?? 'unknown (data sets not built yet)'}${study.quick ? ' (quick)' : ''}${study.limit !== undefined ? ` (limit ${study.limit})` : ''}`);
  const w = Math.max(5, ...plan.runs.map((r) => r.label.length));
  lines.push(`${'model'.padEnd(w)}  ${'setting'.padEnd(11)}  ${'state'.padEnd(11)}  calls to pay: model / judge / distractor`);
  for (const r of plan.runs) lines.push(`${r.label.padEnd(w)}  ${r.setting.padEnd(11)}  ${r.state.padEnd(11)}  ${r.calls.model} / ${r.calls.judge} / ${r.calls.distractor}`);
  const by = (s: PlannedRun['state']) => plan.runs.filter((r) => r.state === s).length;
  lines.push(`runs: ${by('done')} done (cached), ${by('partly done')} partly done, ${by('new')} new`);
  lines.push(`calls still to pay for (estimate): ${(['model', 'judge', 'distractor'] as const).map((role) => `${role} ${plan.totals[role].calls}`).join(', ')}`);
  lines.push(`tokens in/out (estimate): ${(['model', 'judge', 'distractor'] as const).map((role) => `${role} ${plan.totals[role].in}/${plan.totals[role].out}`).join(', ')}`);
  const anyPrice = study.models.some((m) => m.price) || Object.values(study.roles).some((r) => r?.price);
  if (anyPrice) lines.push(`money (estimate, prices from the study): ${(['model', 'judge', 'distractor'] as const).map((role) => `${role} ${formatMoney(plan.totals[role].money)}`).join(', ')}`);
  // UnseenQA asks about events after the data sets' cutoff: a model that knows later events is not asked about unseen knowledge.
  for (const m of study.models) if (m.knowledgeCutoff && m.knowledgeCutoff > study.cutoff) lines.push(`warning: ${m.label}'s knowledge cutoff ${m.knowledgeCutoff} is after the data sets' cutoff ${study.cutoff}: UnseenQA may hold events it has seen`);
  lines.push('how: progress from the run store; per missing item 1 answer, mcqs MCQ answers (every answer counted as correct or wrong: an upper bound), 1 judge call per seen question and 1 distractor call per answer when those LLMs are set; typical prompt sizes, not measured ones. Calls another run already made come from the cache and cost less than this says.');
  return `${lines.join('\n')}\n`;
}
