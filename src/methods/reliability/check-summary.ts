/**
 * What `report` and `compare` need from a reliability summary beyond the v2 schema: checked up
 * front so that an incomplete file is named with its missing field instead of crashing half-way
 * through the report. Other fields pass through.
 */
import { z } from 'zod';
import type { MethodSummary } from '../method-summary.js';
import { METRIC_KEYS } from './metrics/reliability-metrics.js';

let schema: z.ZodType | undefined;

function reliabilitySummarySchema(): z.ZodType {
  const count = z.number().int().min(0);
  const counts = z
    .object({ seen: count, seenCorrect: count, seenWrong: count, seenUninformative: count, unseen: count, unseenWrong: count, unseenUninformative: count })
    .passthrough();
  const metrics = z.object(Object.fromEntries(METRIC_KEYS.map((k) => [k, z.number().nullable()]))).passthrough();
  const group = z.object({ counts, metrics }).passthrough();
  const groups = z.record(z.string(), group);
  const shares = z.record(z.string(), z.number());
  const mcqGroups = z.record(z.string(), z.object({ answers: count, invalid: count }).passthrough());
  const mcqAnswers = z.object({ seen: mcqGroups, unseen: mcqGroups }).passthrough();
  return z
    .object({
      counts,
      metrics,
      intervals: z.object(Object.fromEntries(METRIC_KEYS.map((k) => [k, z.tuple([z.number(), z.number()]).nullable()]))).passthrough(),
      bootstrap: z.object({ resamples: count, seed: z.number(), confidence: z.number().gt(0).lt(1) }).passthrough(),
      breakdowns: z
        .object({
          bySource: groups,
          byAnswerType: z.object({ seen: groups, unseen: groups }),
          uninformativeTypes: z.object({ seen: shares, unseen: shares }),
          mcqAnswers: mcqAnswers.optional(),
        })
        .passthrough(),
    })
    .passthrough();
}

export function checkReliabilitySummary(summary: MethodSummary): Array<{ path: string; message: string }> {
  schema ??= reliabilitySummarySchema();
  const parsed = schema.safeParse(summary);
  return parsed.success ? [] : parsed.error.issues.slice(0, 1).map((i) => ({ path: i.path.join('.'), message: i.message }));
}
