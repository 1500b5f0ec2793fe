/**
 * MCQ answering speed on the in-process runtime: the MCQs of 50 questions in `logprobs` mode
 * (one forward pass, the most probable option letter) against `generate` mode (greedy decoding
 * with room for the option's text, parsed), and against a naive loop (generate mode with no
 * prefix reuse). Prints MCQs/s, tokens evaluated per MCQ, and what one decode step costs in
 * prompt tokens on this machine: with prefix reuse both modes evaluate the same options, so
 * logprobs/generate = 1 + (decode steps x that cost) / (prompt tokens evaluated).
 * No cache: every MCQ is computed. Issue #5 target: logprobs >= 3x faster than generate.
 *
 *   LLMKB_TEST_GGUF=../shared/models/stories260K.gguf LLMKB_DATA_DIR=../shared/data npm run bench:consistency -- [questions=50] [mcqs=20] [threads]
 */
import { join } from 'node:path';
import { answerPoolFrom, runConsistency } from '../src/methods/reliability/consistency/consistency-stage.js';
import { buildSeenQAFiles } from '../src/methods/reliability/data/build-datasets.js';
import { readQAItems } from '../src/methods/reliability/data/qa-item.js';
import { ModelExecutor } from '../src/executor/model-executor.js';
import type { JudgedRecord } from '../src/methods/reliability/judging/judge-response.js';
import { LlamaModel } from '../src/providers/llama/llama-model.js';
import { openDatabase } from '../src/store/database.js';
import { RunStore } from '../src/store/run-store.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

const [questions = 50, mcqs = 20, threads] = process.argv.slice(2).map(Number);
const gguf = process.env.LLMKB_TEST_GGUF;
const dataDir = process.env.LLMKB_DATA_DIR;
if (!gguf || !dataDir) throw new Error('set LLMKB_TEST_GGUF and LLMKB_DATA_DIR');

const out = mkdtempSync(join(tmpdir(), 'llmkb-bench-'));
await buildSeenQAFiles({ outDir: out, seed: 1, dataDir, cacheDir: out, perSource: Math.ceil(questions / 3) });
const items = readQAItems(join(out, 'seenqa.jsonl')).slice(0, questions);
// The model "answered" each question with its gold answer: short, realistic options.
const records: JudgedRecord[] = items.map((item) => ({
  ...item,
  response: item.answers[0]!,
  label: 'correct',
  uninformativeType: null,
  judgedBy: 'bench',
  decision: { by: 'bench' },
}));
console.log(`${records.length} questions x ${mcqs} MCQs, answer pool of ${answerPoolFrom(records).size}, model ${gguf}`);

const settings = { model: gguf, modelsDir: out, ...(threads ? { threads } : {}) };
const model = await LlamaModel.load(settings);
const naive = await LlamaModel.load({ ...settings, reusePrefix: false });
const results: Record<string, { perSecond: number; msPerMcq: number; tokensPerMcq: number }> = {};
for (const [mode, provider, label] of [
  ['logprobs', model, 'logprobs'],
  ['generate', model, 'generate'],
  ['generate', naive, 'generate, no prefix reuse (naive loop)'],
] as const) {
  const executor = new ModelExecutor(provider, { cache: null });
  const started = performance.now();
  const { diagnostics } = await runConsistency({
    records,
    executor,
    mode,
    mcqs,
    seed: 1,
    runs: new RunStore(openDatabase(':memory:')),
    progress: { quiet: true },
  });
  const seconds = (performance.now() - started) / 1000;
  results[label] = { perSecond: diagnostics.mcqs / seconds, msPerMcq: (seconds * 1000) / diagnostics.mcqs, tokensPerMcq: diagnostics.tokensEvaluatedPerMcq };
  console.log(
    `${label.padEnd(40)} ${diagnostics.mcqs} MCQs in ${seconds.toFixed(2)} s: ${(diagnostics.mcqs / seconds).toFixed(1)} MCQs/s, ${diagnostics.tokensEvaluatedPerMcq.toFixed(1)} tokens evaluated per MCQ, ${diagnostics.invalidAnswers} invalid answers`,
  );
}
const lp = results.logprobs!;
const gen = results.generate!;
console.log(`logprobs / generate speed: ${(lp.perSecond / gen.perSecond).toFixed(2)}x (target >= 3x)`);
console.log(`logprobs / naive generate loop: ${(lp.perSecond / results['generate, no prefix reuse (naive loop)']!.perSecond).toFixed(2)}x`);
// Unit costs from the two runs above: a prompt token (logprobs mode evaluates nothing else) and a
// decode step (what generate mode evaluates beyond the same prompt tokens).
const promptTokenMs = lp.msPerMcq / lp.tokensPerMcq;
const decodeSteps = gen.tokensPerMcq - lp.tokensPerMcq;
const decodeStepMs = decodeSteps > 0 ? (gen.msPerMcq - lp.msPerMcq) / decodeSteps : Number.NaN;
console.log(
  `one prompt token ${promptTokenMs.toFixed(3)} ms, one decode step ${decodeStepMs.toFixed(3)} ms (= ${(decodeStepMs / promptTokenMs).toFixed(1)} prompt tokens); generate mode decodes ${decodeSteps.toFixed(1)} steps per MCQ beyond ${lp.tokensPerMcq.toFixed(1)} prompt tokens`,
);
console.log(`3x would need a decode step to cost ${((2 * lp.tokensPerMcq) / Math.max(decodeSteps, 1e-9)).toFixed(0)} prompt tokens at this many decode steps`);
await model.close();
await naive.close();
