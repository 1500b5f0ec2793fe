/**
 * The batch capability of OpenAI-compatible servers (the OpenAI Batch API: /v1/files and
 * /v1/batches): request lines as the provider posts a greedy call live, and their answers read
 * as it reads a live one.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { BatchApi } from '../batch-api.js';
import type { ChatRequest, CompletionRequest, CompletionResult } from '../language-model.js';
import { awaitBatch, BatchClient } from './batch-client.js';

const usageSchema = z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).nullish();
const chatBodySchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullish() }), finish_reason: z.string().nullish() })).min(1),
  usage: usageSchema,
});
const completionsBodySchema = z.object({ choices: z.array(z.object({ text: z.string(), finish_reason: z.string().nullish() })).min(1), usage: usageSchema });

function finishReason(reason: string | null | undefined): CompletionResult['finishReason'] {
  return reason === 'stop' ? 'stop' : reason === 'length' ? 'length' : 'other';
}

function usage(u: z.infer<typeof usageSchema>): CompletionResult['usage'] {
  const promptTokens = u?.prompt_tokens ?? 0;
  const completionTokens = u?.completion_tokens ?? 0;
  return { promptTokens, completionTokens, evaluatedTokens: promptTokens + completionTokens };
}

/** The Batch API of the server at `baseURL` (ending in /v1) for `model`; `api`: which endpoint answers a completion. */
export function openAIBatchApi(settings: { baseURL: string; apiKey?: string; model: string; api: 'completions' | 'chat' }): BatchApi {
  const client = new BatchClient(settings.baseURL, settings.apiKey);
  return {
    endpoint: settings.baseURL,
    line(kind, request) {
      const stop = request.stop && request.stop.length > 0 ? { stop: request.stop } : {};
      if (kind === 'complete' && settings.api === 'completions') {
        const r = request as CompletionRequest;
        return { url: '/v1/completions', body: { model: settings.model, prompt: r.prompt, max_tokens: r.maxTokens, temperature: 0, ...stop } };
      }
      const messages = kind === 'chat' ? (request as ChatRequest).messages : [{ role: 'user', content: (request as CompletionRequest).prompt }];
      return { url: '/v1/chat/completions', body: { model: settings.model, messages, max_tokens: request.maxTokens, temperature: 0, ...stop } };
    },
    async submit(url, lines) {
      const jsonl = lines.map((r) => JSON.stringify({ custom_id: r.customId, method: 'POST', url, body: r.body })).join('\n') + '\n';
      const fileId = await client.uploadBatchFile(jsonl, `llmkb-${createHash('sha256').update(jsonl).digest('hex').slice(0, 12)}.jsonl`);
      return (await client.createBatch(fileId, url)).id;
    },
    async wait(batchId, total, options) {
      const { batch, outcomes } = await awaitBatch(client, batchId, total, options.pollMs, options.label, options.signal);
      return {
        id: batch.id,
        status: batch.status,
        ...(batch.status === 'failed' ? { failure: batch.errors?.data?.[0]?.message ?? 'the Batch API refused the input file' } : {}),
        outcomes,
      };
    },
    result(url, body) {
      if (url === '/v1/chat/completions') {
        const b = chatBodySchema.parse(body);
        return { text: b.choices[0]!.message.content ?? '', finishReason: finishReason(b.choices[0]!.finish_reason), usage: usage(b.usage) };
      }
      const b = completionsBodySchema.parse(body);
      return { text: b.choices[0]!.text, finishReason: finishReason(b.choices[0]!.finish_reason), usage: usage(b.usage) };
    },
  };
}
