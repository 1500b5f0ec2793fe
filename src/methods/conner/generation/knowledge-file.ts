/**
 * The knowledge file: JSONL, one generated knowledge text per query, as `conner generate` writes
 * it and `conner score` reads it. Knowledge generated elsewhere needs only `id`, `query` and
 * `knowledge` (plus `goldAnswer` for helpfulness, `answerWithKnowledge` for validity, and
 * `answerer` naming the model that wrote the answers).
 */
import { z } from 'zod';
import { connerQuerySchema, readConnerJsonl } from './conner-queries.js';
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
    answerer: z.string().min(1).optional(),
    answerWithKnowledge: z.string().optional(),
    answerWithoutKnowledge: z.string().optional(),
    knowledgeShotsDropped: z.number().int().min(0).optional(),
    answerShotsDropped: z.number().int().min(0).optional(),
    limit: z
      .object({ n: z.number().int().min(1), seed: z.number().int().min(0) })
      .strip()
      .optional(),
  })
  .strip();

export function readKnowledgeFile(file: string): GeneratedKnowledge[] {
  const hint =
    'One JSON object a line, every text a string: {"id": "nq:1", "query": "...", "knowledge": "...", "goldAnswer": "...", "answerWithKnowledge": "...", "answerer": "..."} (id, query and knowledge required; `conner generate` writes them; docs/conner.md).';
  return readConnerJsonl(file, generatedKnowledgeSchema, 'knowledge record', hint) as GeneratedKnowledge[];
}
