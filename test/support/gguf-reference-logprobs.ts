/**
 * The reference log-probabilities GGUF scoring tests compare llmkb with: for each continuation
 * token, a FRESH sequence evaluates the whole prefix before it and reads the model's full
 * next-token distribution (evaluateWithMetadata, a different code path from the provider's
 * one-pass controlledEvaluate with prefix reuse); the log of the target's probability is the
 * reference value. The distribution is checked to be one (sums to 1 over the vocabulary), so the
 * value is the log-softmax of the model's logits.
 */
import assert from 'node:assert/strict';
import type { LlamaModel as NativeLlamaModel, Token } from 'node-llama-cpp';

/** ln P(token_i | tokens_<i) for each token of `continuation` after `context` (BOS first when the model wants one). */
export async function referenceLogprobs(model: NativeLlamaModel, context: string, continuation: string): Promise<number[]> {
  const withBos = (t: Token[]): Token[] => (model.tokens.shouldPrependBosToken && model.tokens.bos !== null ? [model.tokens.bos, ...t] : t);
  const all = withBos(model.tokenize(context + continuation, false));
  const ctx = withBos(model.tokenize(context, false));
  let boundary = 0;
  while (boundary < ctx.length && ctx[boundary] === all[boundary]) boundary++;
  const out: number[] = [];
  const evaluation = await model.createContext({ contextSize: 512, threads: 1 });
  try {
    for (let i = Math.max(1, boundary); i < all.length; i++) {
      const sequence = evaluation.getSequence();
      try {
        for await (const r of sequence.evaluateWithMetadata(all.slice(0, i), { probabilities: true }, { temperature: 0 })) {
          const total = [...r.probabilities.values()].reduce((a, b) => a + b, 0);
          assert.ok(Math.abs(total - 1) < 1e-4, `next-token distribution sums to ${total}`);
          out.push(Math.log(r.probabilities.get(all[i]!) ?? 0));
          break;
        }
      } finally {
        sequence.dispose();
      }
    }
  } finally {
    await evaluation.dispose();
  }
  return out;
}
