/**
 * The one place call-cache keys are built: the executor keys every call here, the batching model
 * (src/sweep/batch/) keys the calls it gathers here, and a viewer page that looks a call up keys
 * it here. If they built keys apart and drifted, a paid answer would not be found and would be
 * paid for again, silently.
 */
import type { ChatRequest, CompletionRequest } from '../providers/language-model.js';
import { cacheKey, CanonicalRequest } from '../store/call-key.js';
import { samplingParams } from './call-params.js';

/**
 * Who answers: the model's cache identity, and any further parts that change its answers (e.g.
 * what the server says it serves); parts are joined, so one part keys as the identity alone.
 */
export type CallIdentity = string | readonly string[];

/** The identity as the cache stores it. */
export function identityText(identity: CallIdentity): string {
  return typeof identity === 'string' ? identity : identity.join('\n');
}

/** A call's cache key: its identity, its kind (`complete`, `embed`, ...) and the parameters that change its output. */
export function callKey(identity: CallIdentity, kind: string, params: object | CanonicalRequest): string {
  return cacheKey(identityText(identity), kind, params);
}

/** The parameters of a completion that go into its key: the prompt, budget, stops and sampling. */
export function completionParams(request: Pick<CompletionRequest, 'prompt' | 'maxTokens' | 'stop' | 'sampling'>): object {
  return { prompt: request.prompt, maxTokens: request.maxTokens, stop: request.stop ?? [], ...samplingParams(request.sampling) };
}

/** The parameters of a chat call that go into its key. */
export function chatParams(request: ChatRequest): object {
  return { messages: request.messages, maxTokens: request.maxTokens, stop: request.stop ?? [], ...samplingParams(request.sampling) };
}

/** A generation call's key and the parameters it is made from (plain data, for a journal or the cache). */
export function generationCallKey(
  identity: CallIdentity,
  kind: 'complete' | 'chat',
  request: Pick<CompletionRequest, 'prompt' | 'maxTokens' | 'stop' | 'sampling'> | ChatRequest,
): { key: string; params: object } {
  const params = kind === 'chat' ? chatParams(request as ChatRequest) : completionParams(request as CompletionRequest);
  return { key: callKey(identity, kind, CanonicalRequest.of(params)), params };
}
