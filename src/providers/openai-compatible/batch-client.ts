/**
 * The OpenAI Batch API's HTTP calls, as `llmkb sweep --batch` uses them (./openai-batch-api.ts): upload a JSONL input file
 * (/v1/files), create a batch (/v1/batches), poll it until it ends, and read each request's
 * outcome from the output and error files, as the provider would read a live answer's status.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { ModelCallError } from '../../errors.js';
import { Progress } from '../../progress/progress.js';
import type { BatchError } from '../batch-api.js';
import { isOpenAIContextOverflow } from './http-client.js';

const batchSchema = z.object({
  id: z.string(),
  status: z.enum(['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled']),
  output_file_id: z.string().nullish(),
  error_file_id: z.string().nullish(),
  request_counts: z.object({ total: z.number(), completed: z.number(), failed: z.number() }).nullish(),
  errors: z.object({ data: z.array(z.object({ code: z.string().nullish(), message: z.string().nullish(), line: z.number().nullish() })).nullish() }).nullish(),
});
export type Batch = z.infer<typeof batchSchema>;

const outputLineSchema = z.object({
  custom_id: z.string(),
  response: z.object({ status_code: z.number(), body: z.unknown() }).nullish(),
  error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

/** Error-file codes and statuses worth another try in a later batch. */
function retryable(code: string | null | undefined, status: number | undefined): boolean {
  return code === 'batch_expired' || code === 'batch_cancelled' || code === 'request_timeout' || status === 429 || (status !== undefined && status >= 500);
}

/** The Batch API's HTTP calls. */
export class BatchClient {
  readonly #base: string;
  readonly #key: string | undefined;
  constructor(baseURL: string, apiKey?: string) {
    this.#base = baseURL.replace(/\/+$/, '');
    this.#key = apiKey;
  }

  async #fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.#key) headers.set('authorization', `Bearer ${this.#key}`);
    let response: Response;
    try {
      response = await fetch(`${this.#base}${path}`, { ...init, headers });
    } catch (error) {
      throw new ModelCallError(`cannot reach ${this.#base}${path}: ${error instanceof Error ? error.message : String(error)}`, {
        retryable: true,
        endpoint: this.#base,
        cause: error,
      });
    }
    if (!response.ok) {
      const text = (await response.text()).slice(0, 300);
      throw new ModelCallError(`${this.#base}${path} answered ${response.status}: ${this.#key ? text.split(this.#key).join('***') : text}`, {
        retryable: response.status === 429 || response.status >= 500,
        status: response.status,
        endpoint: this.#base,
      });
    }
    return response;
  }

  async uploadBatchFile(jsonl: string, filename: string): Promise<string> {
    const form = new FormData();
    form.set('purpose', 'batch');
    form.set('file', new Blob([jsonl], { type: 'application/jsonl' }), filename);
    const json = (await (await this.#fetch('/files', { method: 'POST', body: form })).json()) as { id?: unknown };
    if (typeof json.id !== 'string') throw new ModelCallError(`${this.#base}/files answered without a file id`, { retryable: false, endpoint: this.#base });
    return json.id;
  }

  async createBatch(inputFileId: string, endpoint: string): Promise<Batch> {
    const r = await this.#fetch('/batches', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input_file_id: inputFileId, endpoint, completion_window: '24h' }),
    });
    return batchSchema.parse(await r.json());
  }

  async getBatch(id: string): Promise<Batch> {
    return batchSchema.parse(await (await this.#fetch(`/batches/${encodeURIComponent(id)}`)).json());
  }

  async fileContent(id: string): Promise<string> {
    return (await this.#fetch(`/files/${encodeURIComponent(id)}/content`)).text();
  }
}

const TERMINAL = new Set(['completed', 'expired', 'cancelled', 'failed']);

/** Polls a batch until it ends, with progress; returns it and its outcome per custom_id. */
export async function awaitBatch(
  client: BatchClient,
  batchId: string,
  total: number,
  pollMs: number,
  label: string,
  signal?: AbortSignal,
): Promise<{ batch: Batch; outcomes: Map<string, { result?: unknown; error?: BatchError }> }> {
  const progress = new Progress(label, total);
  let batch: Batch;
  for (;;) {
    batch = await client.getBatch(batchId);
    const counts = batch.request_counts;
    if (counts) {
      while (progress.done + progress.failed < counts.completed + counts.failed) progress.tick(progress.failed < counts.failed ? { failed: true } : {});
    }
    if (TERMINAL.has(batch.status)) break;
    await sleep(pollMs, undefined, signal ? { signal } : {});
  }
  progress.finish(batch.status === 'completed' ? '' : `(${batch.status})`);
  const outcomes = new Map<string, { result?: unknown; error?: BatchError }>();
  for (const fileId of [batch.output_file_id, batch.error_file_id]) {
    if (!fileId) continue;
    for (const line of (await client.fileContent(fileId)).split('\n')) {
      if (!line.trim()) continue;
      const parsed = outputLineSchema.safeParse(JSON.parse(line));
      if (!parsed.success) continue;
      const { custom_id: id, response, error } = parsed.data;
      if (response && response.status_code === 200 && !error) outcomes.set(id, { result: response.body });
      else {
        const status = response?.status_code;
        const bodyMessage = (response?.body as { error?: { message?: string } } | undefined)?.error?.message;
        const message = error?.message ?? bodyMessage ?? `status ${status ?? 'unknown'}`;
        outcomes.set(id, {
          error: {
            message,
            retryable: retryable(error?.code, status),
            contextOverflow: isOpenAIContextOverflow(status, message),
            ...(status === undefined ? {} : { status }),
          },
        });
      }
    }
  }
  return { batch, outcomes };
}
