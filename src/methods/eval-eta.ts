/**
 * The plan behind `llmkb eval`'s ETA for the whole evaluation (src/progress/eval-progress.ts): a
 * step per setting and stage, with its items and a prior cost per item. The prior comes from the
 * method's own `plan` (what `llmkb sweep --plan` shows): the tokens a stage's calls typically
 * take, found as what the plan says is left once that stage is done; a method without a plan
 * weighs every item of every stage alike. Measured times replace the prior as the stages run.
 */
import type { EvaluationMethod, PlanEstimate } from '../methods/method.js';
import type { PlannedStep } from '../progress/eval-progress.js';

/** Generating a token costs about as much as reading ten (prompt tokens are evaluated in batches). */
const PROMPT_TOKEN_WEIGHT = 0.1;

function units(estimate: PlanEstimate | undefined): number | undefined {
  if (!estimate?.calls) return undefined;
  return Object.values(estimate.calls).reduce((sum, c) => sum + c.out + PROMPT_TOKEN_WEIGHT * c.in + (c.in + c.out === 0 ? c.calls : 0), 0);
}

export function evalSteps(
  method: EvaluationMethod,
  ctx: {
    options: Record<string, unknown>;
    settings: readonly string[];
    quick: boolean;
    items: number;
    limit?: number;
    roles: ReadonlySet<string>;
    label: string;
    baseDir: string;
  },
): PlannedStep[] {
  const items = ctx.limit === undefined ? ctx.items : Math.min(ctx.limit, ctx.items);
  return ctx.settings.flatMap((setting) => {
    // What the plan says is left with the first k stages done, for k = 0..stages.
    const left = method.stages.map((_, k) => {
      const stages = new Map(method.stages.slice(0, k).map((s) => [s.id, { records: items, done: true }]));
      return units(
        method.plan?.({
          options: ctx.options,
          setting,
          quick: ctx.quick,
          ...(ctx.limit === undefined ? {} : { limit: ctx.limit }),
          roles: ctx.roles,
          label: ctx.label,
          stages,
          baseDir: ctx.baseDir,
        }),
      );
    });
    return method.stages.map((stage, k) => {
      const before = left[k];
      const after = k + 1 < left.length ? left[k + 1] : 0;
      const cost = before === undefined || after === undefined || items === 0 ? 1 : Math.max(0, before - after) / items;
      return { setting, stage: stage.id, items, costPerItem: cost };
    });
  });
}
