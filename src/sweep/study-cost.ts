/**
 * Tokens in and out per role, and money when the study gives prices (per million tokens, in
 * whatever currency they are written). The models under test are priced each by its own entry;
 * the other roles by theirs. Tokens are what the servers reported; cache hits cost nothing.
 */
import type { Study } from './study.js';

export interface RoleTokens {
  calls: number;
  cacheHits: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
}

export interface RoleCost {
  promptTokens: number;
  completionTokens: number;
  /** null: no price given for (some of) the role's models. */
  money: number | null;
}

export function priced(
  tokensIn: number,
  tokensOut: number,
  price: { input: number; output: number; batchInput?: number; batchOutput?: number } | undefined,
  batch = false,
): number | null {
  if (!price) return null;
  const input = batch ? (price.batchInput ?? price.input / 2) : price.input;
  const output = batch ? (price.batchOutput ?? price.output / 2) : price.output;
  return (tokensIn * input + tokensOut * output) / 1e6;
}

/** Cost per role (`model`: the models under test together), from tokens per role and per model under test. */
export function costOf(
  study: Study,
  tokens: Record<string, RoleTokens>,
  perModel: ReadonlyMap<string, RoleTokens>,
  batchedRoles: readonly string[] = [],
): Record<string, RoleCost> {
  const out: Record<string, RoleCost> = {};
  for (const [role, t] of Object.entries(tokens)) {
    let money: number | null;
    if (role === 'model') {
      money = 0;
      for (const [label, mt] of perModel) {
        const m = study.models.find((x) => x.label === label);
        const p = priced(mt.promptTokens, mt.completionTokens, m?.price);
        money = p === null || money === null ? (mt.requests === 0 ? money : null) : money + p;
      }
    } else {
      money = t.requests === 0 ? 0 : priced(t.promptTokens, t.completionTokens, study.roles[role as keyof Study['roles']]?.price, batchedRoles.includes(role));
    }
    out[role] = { promptTokens: t.promptTokens, completionTokens: t.completionTokens, money };
  }
  return out;
}

export function formatMoney(value: number | null): string {
  return value === null ? 'no price' : value.toFixed(value < 1 ? 4 : 2);
}

/**
 * The roles `--batch` sends through the Batch API: those the study's methods mark batchable
 * (their latency does not matter) that the study gives a model, unless its entry says `batch: false`.
 */
export function batchRoles(study: Study): string[] {
  return [...new Set(study.methods.flatMap((m) => m.method.roles.filter((r) => r.batchable).map((r) => r.id)))].filter(
    (r) => study.roles[r] !== undefined && study.roles[r].batch !== false,
  );
}
