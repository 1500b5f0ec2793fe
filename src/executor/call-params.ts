/**
 * The parameters of generation calls that go into their cache keys, and the cheap way to write a
 * greedy completion's (the executor makes one per MCQ, hundreds of thousands in a large run).
 */
import type { CompletionRequest, Sampling } from '../providers/language-model.js';
import { CanonicalRequest } from '../store/call-key.js';

/**
 * The sampling part of a generation call's cache key. A greedy call is keyed by
 * `temperature: 0` alone (the key existing caches hold for it); a sampled call adds top-p, its
 * seed and its draw index, so each of r draws is its own entry.
 */
export function samplingParams(sampling: Sampling | undefined): { temperature: number; topP?: number; seed?: number; sample?: number } {
  if (sampling === undefined) return { temperature: 0 };
  return { temperature: sampling.temperature, topP: sampling.topP, seed: sampling.seed, sample: sampling.sample };
}

/**
 * A greedy completion's parameters as canonical JSON, written directly: the text canonicalJson
 * gives for `{ prompt, maxTokens, stop, temperature: 0 }` (keys in sorted order), without its
 * general walk (sorting keys, a part per value). Undefined for any other shape (sampled calls, a
 * non-finite budget): those take the general path. model-executor.test.ts checks both give the
 * same text.
 */
export function greedyCompletionParams(request: CompletionRequest, prefix?: PromptPrefix): CanonicalRequest | undefined {
  if (request.sampling !== undefined || typeof request.maxTokens !== 'number' || !Number.isFinite(request.maxTokens) || typeof request.prompt !== 'string')
    return undefined;
  const stop = request.stop ?? [];
  if (!Array.isArray(stop)) return undefined;
  let stops = '';
  for (let i = 0; i < stop.length; i++) {
    const s = stop[i];
    if (typeof s !== 'string') return undefined;
    stops += i === 0 ? JSON.stringify(s) : `,${JSON.stringify(s)}`;
  }
  const prompt =
    prefix !== undefined && prefix.json !== undefined && request.prompt.startsWith(prefix.text)
      ? `${prefix.json}${JSON.stringify(request.prompt.slice(prefix.text.length)).slice(1)}`
      : JSON.stringify(request.prompt);
  return new CanonicalRequest(`{"maxTokens":${JSON.stringify(request.maxTokens)},"prompt":${prompt},"stop":[${stops}],"temperature":0}`);
}

/**
 * The start that several prompts share (a pair's MCQs share the instruction, the shots and the
 * question: nearly all of each prompt), as JSON text once: a prompt that starts with it is
 * written into its call's canonical JSON as this plus its own rest, instead of escaping all of
 * it again per call. The same text as JSON.stringify of the whole prompt: JSON escapes each
 * UTF-16 unit on its own except a surrogate pair, so a prefix ending inside one (a high
 * surrogate last) is not used.
 */
export class PromptPrefix {
  readonly text: string;
  /** `"` and the escaped text, without the closing quote; undefined if it cannot be split there. */
  readonly json: string | undefined;

  constructor(text: string) {
    this.text = text;
    const last = text.charCodeAt(text.length - 1);
    this.json = last >= 0xd800 && last <= 0xdbff ? undefined : JSON.stringify(text).slice(0, -1);
  }
}
