/**
 * The arithmetic of what runs cost, in one place: the calls, cache hits, requests and tokens of a
 * role, and what each replica of a model served. The runner takes the difference of an executor's
 * counts before and after a run (`.run.json`); the sweep adds up its runs' records (`sweep.json`).
 */
import type { ExecutionRecord } from './method-summary.js';

/** Calls, cache hits, requests and tokens of one role. */
export type CallCounts = ExecutionRecord['calls'][string];
/** What one replica of a model answered and failed, and how often it was taken out. */
export type ReplicaCounts = NonNullable<ExecutionRecord['replicas']>[string][number];

const CALL_FIELDS = ['calls', 'cacheHits', 'requests', 'promptTokens', 'completionTokens'] as const;
const REPLICA_FIELDS = ['served', 'failed', 'trips'] as const;

export function noCalls(): CallCounts {
  return { calls: 0, cacheHits: 0, requests: 0, promptTokens: 0, completionTokens: 0 };
}

/** `a + sign × b`, field by field: several runs together (`sign` 1), or the calls made between two readings of one executor (`sign` -1). */
export function addCalls(a: CallCounts, b: CallCounts, sign: 1 | -1 = 1): CallCounts {
  const out = noCalls();
  for (const f of CALL_FIELDS) out[f] = a[f] + sign * b[f];
  return out;
}

/** `a + sign × b` for a model's replicas, in the order of its endpoints (`a` undefined: none counted yet). */
export function addReplicas(a: readonly ReplicaCounts[] | undefined, b: readonly ReplicaCounts[], sign: 1 | -1 = 1): ReplicaCounts[] {
  return b.map((r, i) => {
    const out: ReplicaCounts = { url: r.url, served: 0, failed: 0, trips: 0 };
    for (const f of REPLICA_FIELDS) out[f] = (a?.[i]?.[f] ?? 0) + sign * r[f];
    return out;
  });
}

/** Per role, the calls of several runs added up. */
export function sumCalls(perRun: Iterable<ExecutionRecord['calls'] | undefined>): Record<string, CallCounts> {
  const out: Record<string, CallCounts> = {};
  for (const calls of perRun) for (const [role, c] of Object.entries(calls ?? {})) out[role] = addCalls(out[role] ?? noCalls(), c);
  return out;
}
