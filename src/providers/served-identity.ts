/**
 * What a server says about the model it serves, for the call cache's key (ModelBase.servedIdentity):
 * vLLM's `/v1/models` entry's `root` (the checkpoint it loaded), llama.cpp server's `meta` (the
 * GGUF's size and parameters), Ollama's digest (`/api/tags`), TEI's `/info` model id and revision.
 * Asked once per model, with a short time-out; a server that cannot be asked or reports nothing
 * gives undefined (the key is then the model's name alone). Replicas that report different models
 * are refused: their answers would mix in one run.
 */
import { LlmkbError } from '../errors.js';
import { readLimitedText } from '../reply-limit.js';

const ASK_TIMEOUT_MS = 5000;
/** The most of a model listing or /info read: larger than any real one, so a hostile server cannot make llmkb buffer a flood. */
const ASK_REPLY_BYTES = 4 * 1024 * 1024;

async function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
  try {
    const response = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal: AbortSignal.timeout(ASK_TIMEOUT_MS) });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    // Too large, not JSON or cut off: the identity is unknown, as when the server does not answer.
    return JSON.parse(await readLimitedText(response, ASK_REPLY_BYTES, url)) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One OpenAI-compatible server (base URL ending in /v1): what it reports about `model`. */
async function openAIServed(base: string, model: string, flavor: string, apiKey: string | undefined): Promise<string | undefined> {
  const auth: Record<string, string> = apiKey === undefined ? {} : { authorization: /^(Bearer|Basic) /.test(apiKey) ? apiKey : `Bearer ${apiKey}` };
  const listed = await getJson(`${base}/models`, auth);
  const entry = isObject(listed) && Array.isArray(listed.data) ? (listed.data as unknown[]).find((m) => isObject(m) && m.id === model) : undefined;
  if (isObject(entry)) {
    // vLLM (and SGLang): the checkpoint path or hub id it loaded.
    if (typeof entry.root === 'string' && entry.root !== '') return `root=${entry.root}`;
    // llama.cpp's server: the GGUF's metadata (parameters, size, vocabulary).
    if (isObject(entry.meta)) return `meta=${JSON.stringify(entry.meta)}`;
  }
  if (flavor === 'ollama') {
    const tags = await getJson(`${new URL(base).origin}/api/tags`, auth);
    const found =
      isObject(tags) && Array.isArray(tags.models)
        ? (tags.models as unknown[]).find((m) => isObject(m) && (m.name === model || m.model === model || m.name === `${model}:latest`))
        : undefined;
    if (isObject(found) && typeof found.digest === 'string') return `digest=${found.digest}`;
  }
  // OpenAI: a model's `created` is when that model was made (vLLM and llama.cpp put the time of the request there).
  if (flavor === 'openai' && isObject(entry) && typeof entry.created === 'number') return `created=${entry.created}`;
  return undefined;
}

/** TEI's `/info`: the model id and its revision (commit). */
async function teiServed(base: string): Promise<string | undefined> {
  const info = await getJson(`${base}/info`, {});
  if (!isObject(info) || typeof info.model_id !== 'string') return undefined;
  return `model_id=${info.model_id}${typeof info.model_sha === 'string' ? `@${info.model_sha}` : ''}`;
}

/** The same identity from every endpoint that reports one, or a refusal naming two that differ. */
async function agreed(endpoints: readonly string[], ask: (base: string) => Promise<string | undefined>, model: string): Promise<string | undefined> {
  const reported = await Promise.all(endpoints.map(async (base) => ({ base, served: await ask(base) })));
  const known = reported.filter((r): r is { base: string; served: string } => r.served !== undefined);
  const other = known.find((r) => r.served !== known[0]!.served);
  if (other !== undefined) {
    throw new LlmkbError(
      `the replicas of ${model} serve different models: ${known[0]!.base} reports ${known[0]!.served}, ${other.base} reports ${other.served}`,
      { hint: 'List only replicas of one checkpoint in one model entry (their answers share the call cache); give the others an entry of their own.' },
    );
  }
  return known[0]?.served;
}

export function openAIServedIdentity(endpoints: readonly string[], model: string, flavor: string, apiKey: string | undefined): Promise<string | undefined> {
  return agreed(endpoints, (base) => openAIServed(base, model, flavor, apiKey), model);
}

export function teiServedIdentity(endpoints: readonly string[], model: string): Promise<string | undefined> {
  return agreed(endpoints, teiServed, model);
}
