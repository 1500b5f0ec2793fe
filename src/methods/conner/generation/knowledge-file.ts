/**
 * The knowledge file: JSONL, one generated knowledge text per query, as `conner generate` writes
 * it and `conner score` reads it. Knowledge generated elsewhere needs only `id`, `query` and
 * `knowledge` (plus `goldAnswer` for helpfulness, `answerWithKnowledge` for validity).
 */
import { z } from 'zod';
import { readJsonl } from '../../../io/jsonl.js';
import { connerQuerySchema } from './conner-queries.js';
import type { GeneratedKnowledge } from './generate-knowledge.js';

/** A query record (`connerQuerySchema`) with the knowledge generated for it. */
export const generatedKnowledgeSchema = connerQuerySchema
  .extend({
    generator: z.string().min(1).default('given'),
    /** `zero-shot`, `few-shot`, `given` (brought from elsewhere), `best-of ...` (from `conner best-of`). */
    setting: z.string().min(1).default('given'),
    prompt: z.number().int().min(1).max(4).optional(),
    knowledgeDemos: z.array(z.string()).default([]),
    knowledge: z.string(),
    answerDemos: z.array(z.string()).default([]),
    answerWithKnowledge: z.string().optional(),
    answerWithoutKnowledge: z.string().optional(),
  })
  .strip();

export function readKnowledgeFile(file: string): GeneratedKnowledge[] {
  return readJsonl(file, generatedKnowledgeSchema, 'knowledge record', { uniqueIds: true }) as GeneratedKnowledge[];
}
