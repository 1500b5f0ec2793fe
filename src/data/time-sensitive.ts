/**
 * SeenQA step 2: remove questions whose answers change over time (paper section 3.2).
 *
 * With an LLM: the paper's Table 5 prompt, `batchSize` numbered questions per call (cached like
 * every call), the reply's indices parsed strictly. Without one: a documented keyword rule
 * (`keyword-rule-v1`), and the dataset card says which was used.
 */
import type { ModelExecutor } from '../executor/model-executor.js';
import { timeSensitivePrompt } from '../prompts/paper-prompts.js';

export type TimeSensitiveMethod = { kind: 'llm'; model: string } | { kind: 'keyword-rule-v1' };

/**
 * Keyword rule: wording that ties the answer to "now" or to a sequence that keeps growing.
 * "current(ly)", "now", "today", "latest", "most recent", "as of", "this year/season", "so far",
 * "to date", "last time", "still", "present", "reigning", "new(est)", "recent", "at the moment",
 * "who is the president/prime minister/ceo/... of" (present tense office holders), "how many ... has/have".
 */
const TIME_SENSITIVE_PATTERNS: RegExp[] = [
  /\b(current|currently|now|nowadays|today|latest|newest|most recent|recently|as of|so far|to date|at the moment|at present|presently|still|reigning|incumbent|upcoming|next)\b/i,
  /\bthis (year|season|week|month)\b/i,
  /\blast time\b/i,
  /\bwho (is|are) the (current )?(president|prime minister|chancellor|ceo|chairman|governor|mayor|head coach|coach|manager|captain|leader|king|queen|pope|secretary|speaker|owner|ruler)\b/i,
  /\bhow many\b.*\b(has|have)\b/i,
  /\b(most|highest|all[- ]time)\b.*\b(paid|followed|subscribed|watched|viewed|grossing|goals|points|titles|wins|records?)\b/i,
];

export function isTimeSensitiveByKeywords(question: string): boolean {
  return TIME_SENSITIVE_PATTERNS.some((re) => re.test(question));
}

export interface TimeSensitiveResult {
  /** Questions judged time-sensitive, by index into the input. */
  flagged: Set<number>;
  method: TimeSensitiveMethod;
  calls: number;
  /** Batches whose reply contained no index list (kept, not guessed). */
  unparsedBatches: number;
}

/**
 * Parses the reply to the Table 5 prompt: the indices on its first non-empty line ("1, 4",
 * "Index: 3", "None"). Returns undefined when the reply has no recognisable answer.
 */
export function parseIndexReply(reply: string, batchLength: number): Set<number> | undefined {
  const line = reply.split('\n').map((l) => l.trim()).find((l) => l !== '');
  if (line === undefined) return new Set();
  if (/^(none|no questions?|n\/a|-|\[\])\.?$/i.test(line)) return new Set();
  const body = line.replace(/^index(es)?:\s*/i, '');
  if (!/^[\d\s,;.and&[\]]+$/i.test(body)) return undefined;
  const indices = new Set<number>();
  for (const m of body.matchAll(/\d+/g)) {
    const n = Number(m[0]);
    if (n >= 1 && n <= batchLength) indices.add(n - 1);
  }
  return indices;
}

export async function detectTimeSensitive(
  questions: readonly string[],
  options: { executor?: ModelExecutor; batchSize?: number; onProgress?: (done: number, cached: boolean) => void },
): Promise<TimeSensitiveResult> {
  const flagged = new Set<number>();
  if (!options.executor) {
    questions.forEach((q, i) => {
      if (isTimeSensitiveByKeywords(q)) flagged.add(i);
    });
    return { flagged, method: { kind: 'keyword-rule-v1' }, calls: 0, unparsedBatches: 0 };
  }
  const executor = options.executor;
  const batchSize = options.batchSize ?? 20;
  const batches: number[][] = [];
  for (let start = 0; start < questions.length; start += batchSize) {
    batches.push(Array.from({ length: Math.min(batchSize, questions.length - start) }, (_, j) => start + j));
  }
  let unparsedBatches = 0;
  await Promise.all(
    batches.map(async (batch) => {
      const prompt = timeSensitivePrompt(batch.map((i) => questions[i]!));
      const reply = await executor.complete({ prompt, maxTokens: 100, stop: ['\n\nHere is the list'] });
      const indices = parseIndexReply(reply.value.text, batch.length);
      if (indices === undefined) unparsedBatches += 1;
      for (const j of indices ?? []) flagged.add(batch[j]!);
      options.onProgress?.(batch.length, reply.cached);
    }),
  );
  return { flagged, method: { kind: 'llm', model: executor.model.cacheIdentity }, calls: batches.length, unparsedBatches };
}
