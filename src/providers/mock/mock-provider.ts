/**
 * The `mock:` provider: a scripted model from a replies file, for offline and deterministic runs.
 *
 *   mock:./replies.jsonl         one rule per line, tried in order (see ./mock-model.ts):
 *     {"contains": "capital of France", "reply": " Paris"}
 *     {"regex": "^INSTRUCTION: You need to check", "reply": " yes"}
 *     {"prompt": "exact prompt", "reply": "...", "logprobs": {"A": -0.1, "B": -2.5}}
 *     {"default": true, "reply": " unsure"}
 *
 * The cache identity is a hash of the rules, so an edited file never reuses old replies.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { InputFileError, ModelSpecError } from '../../errors.js';
import { readJsonl } from '../../io/jsonl.js';
import type { ModelProvider } from '../model-provider.js';
import type { MockRule } from './mock-model.js';

export interface MockSpec {
  provider: 'mock';
  /** The replies file. */
  file: string;
}

export const mockRuleSchema: z.ZodType<MockRule> = z
  .object({
    prompt: z.string().optional(),
    contains: z.string().optional(),
    regex: z
      .string()
      .refine((r) => {
        try {
          new RegExp(r);
          return true;
        } catch {
          return false;
        }
      }, 'not a valid regular expression')
      .optional(),
    flags: z
      .string()
      .regex(/^[dgimsuvy]*$/, 'not regular-expression flags')
      .optional(),
    default: z.boolean().optional(),
    reply: z.string().optional(),
    samples: z.array(z.string()).min(1).optional(),
    logprobs: z.record(z.string(), z.number().max(0)).optional(),
  })
  .strict()
  .refine(
    (r) => r.prompt !== undefined || r.contains !== undefined || r.regex !== undefined || r.default === true,
    'a rule needs "prompt", "contains", "regex" or "default": true',
  )
  .refine((r) => r.reply !== undefined || r.logprobs !== undefined || r.samples !== undefined, 'a rule needs "reply", "samples" or "logprobs"');

/** The rules of a replies file; errors name the file, line and field. */
export function readMockReplies(file: string): MockRule[] {
  const rules = readJsonl(file, mockRuleSchema, 'reply rule');
  const defaults = rules.flatMap((r, i) => (r.default ? [i] : []));
  if (defaults.length > 1)
    throw new InputFileError(
      file,
      undefined,
      'default',
      `${defaults.length} default rules`,
      'Keep one {"default": true, ...} line: only the first could ever answer.',
    );
  return rules;
}

const mockOptions = z.object({});

export const mockProvider: ModelProvider<MockSpec, z.infer<typeof mockOptions>> = {
  id: 'mock',
  schemes: ['mock'],
  kinds: ['text-generation'],
  optionsSchema: mockOptions,
  examples: ['mock:./replies.jsonl'],
  parseSpec(spec, _scheme, rest) {
    if (rest.trim() === '')
      throw new ModelSpecError(`"${spec}" names no replies file`, {
        hint: 'Write mock:PATH, e.g. mock:./replies.jsonl (one {"contains": "...", "reply": "..."} rule per line; docs/models.md, "Scripted models").',
      });
    return { provider: 'mock', file: rest };
  },
  localPathSchemes: ['mock'],
  traits: (spec) => ({ files: [spec.file] }),
  async create(spec, options) {
    const { MockModel } = await import('./mock-model.js');
    return new MockModel({ replies: readMockReplies(resolve(spec.file)), modelId: options.spec.trim() });
  },
};
