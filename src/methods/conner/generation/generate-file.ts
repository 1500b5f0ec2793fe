/**
 * `generateKnowledgeFile`: knowledge generated for the queries and written as JSONL, as one call
 * (what `llmkb conner generate` runs; the command prints). The queries' seeded sample (`limit`)
 * travels with each record, so `conner score` records it in the protocol; how many prompts left
 * demonstrations out to fit the context is counted.
 */
import { writeFileAtomic } from '../../../io/files.js';
import { toJsonl } from '../../../io/jsonl.js';
import { generateKnowledge, type GeneratedKnowledge, type GenerateOptions } from './generate-knowledge.js';

export interface GeneratedFile {
  records: GeneratedKnowledge[];
  /** Prompts that left demonstrations out to fit the context: knowledge prompts and answer prompts. */
  shotsDropped: { knowledge: number; answer: number };
}

/** Generates and writes `output`; see the module's comment. */
export async function generateKnowledgeFile(options: GenerateOptions & { output: string; limit?: { n: number; seed: number } }): Promise<GeneratedFile> {
  const { output, limit, ...generation } = options;
  const generated = await generateKnowledge(generation);
  const records = limit ? generated.map((k) => ({ ...k, limit })) : generated;
  writeFileAtomic(output, toJsonl(records));
  const dropped = (field: 'knowledgeShotsDropped' | 'answerShotsDropped'): number => records.filter((r) => (r[field] ?? 0) > 0).length;
  return { records, shotsDropped: { knowledge: dropped('knowledgeShotsDropped'), answer: dropped('answerShotsDropped') } };
}
