/**
 * The OpenAI API response shapes llmkb reads (legacy `/completions` with `echo` and
 * `text_offset`, `/chat/completions` with `logprobs`, `/embeddings`), as zod schemas: a server
 * that answers in another shape gets a clear error, not a crash.
 */
import { z } from 'zod';
import type { CompletionResult, Usage } from '../language-model.js';

export const usageSchema = z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).nullish();

export const completionsSchema = z.object({
  choices: z
    .array(
      z.object({
        text: z.string(),
        finish_reason: z.string().nullish(),
        logprobs: z
          .object({
            tokens: z.array(z.string()).optional(),
            token_logprobs: z.array(z.number().nullable()).optional(),
            top_logprobs: z.array(z.record(z.string(), z.number()).nullable()).nullish(),
            text_offset: z.array(z.number()).optional(),
          })
          .nullish(),
      }),
    )
    .min(1),
  usage: usageSchema,
});

export const chatSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish() }),
        finish_reason: z.string().nullish(),
        logprobs: z
          .object({
            content: z
              .array(
                z.object({
                  token: z.string(),
                  logprob: z.number(),
                  top_logprobs: z.array(z.object({ token: z.string(), logprob: z.number() })).optional(),
                }),
              )
              .nullish(),
          })
          .nullish(),
      }),
    )
    .min(1),
  usage: usageSchema,
});

export const embeddingsSchema = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().int() })).min(1),
  usage: z.object({ prompt_tokens: z.number().optional() }).nullish(),
});

export function usageOf(usage: z.infer<typeof usageSchema>): Usage {
  const promptTokens = usage?.prompt_tokens ?? 0;
  const completionTokens = usage?.completion_tokens ?? 0;
  return { promptTokens, completionTokens, evaluatedTokens: promptTokens + completionTokens };
}

export function finishReason(reason: string | null | undefined): CompletionResult['finishReason'] {
  return reason === 'stop' ? 'stop' : reason === 'length' ? 'length' : 'other';
}
