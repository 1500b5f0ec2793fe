/**
 * CONNER's language-model metrics on the GGUF test model: items/s per metric (no cache, so every
 * item is evaluated), over knowledge texts built from CONNER's NQ test file (the gold passages,
 * cut to their first three sentences, as stand-ins for generated knowledge). Prints its figures;
 * not a timed test.
 *
 *   LLMKB_TEST_GGUF=../shared/models/stories260K.gguf LLMKB_DATA_DIR=../shared/data \
 *     npm run bench:conner -- [items=50] [negatives=5]
 *
 * Helpfulness scores one (query, knowledge) prefix with several continuations and the
 * baselines share the answer: the GGUF scorer reuses the evaluated prefix where it can.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelExecutor, type ExecutableModel } from '../src/executor/model-executor.js';
import { splitSentences } from '../src/methods/conner/evidence/sentences.js';
import { parseConnerTestFile } from '../src/methods/conner/generation/conner-queries.js';
import { paragraphCoherence, sentenceCoherence } from '../src/methods/conner/scoring/coherence.js';
import { executorTokenScorer } from '../src/methods/conner/scoring/executor-scorers.js';
import { sampleNegatives, scoreHelpfulness } from '../src/methods/conner/scoring/helpfulness.js';
import { scoreInformativeness } from '../src/methods/conner/scoring/informativeness.js';
import { truncateWords } from '../src/methods/conner/scoring/score-knowledge.js';
import { LlamaModel } from '../src/providers/llama/llama-model.js';

const gguf = process.env.LLMKB_TEST_GGUF;
const dataDir = process.env.LLMKB_DATA_DIR;
if (!gguf || !dataDir) {
  process.stderr.write('set LLMKB_TEST_GGUF and LLMKB_DATA_DIR\n');
  process.exit(2);
}
const [items = 50, negatives = 5] = process.argv.slice(2).map(Number);
const file = join(dataDir, 'conner', 'nq_test_random_testset.txt');
const queries = parseConnerTestFile(readFileSync(file, 'utf8'), file).slice(0, items);
const knowledge = new Map(queries.map((q) => [q.id, truncateWords(splitSentences(q.referenceKnowledge ?? '').slice(0, 3).join(' '))]));

const provider = await LlamaModel.load({ model: gguf, modelsDir: tmpdir(), sequences: 1, threads: 1 });
const executor = new ModelExecutor(provider, { cache: null }) as unknown as ModelExecutor<ExecutableModel>;
const scorer = executorTokenScorer(executor);

async function measure(metric: string, work: (q: (typeof queries)[number]) => Promise<unknown>): Promise<void> {
  const before = executor.accounting.evaluatedTokens;
  const started = performance.now();
  for (const q of queries) await work(q);
  const seconds = (performance.now() - started) / 1000;
  const tokens = executor.accounting.evaluatedTokens - before;
  process.stdout.write(`${metric.padEnd(20)} ${(queries.length / seconds).toFixed(1).padStart(8)} items/s  ${(tokens / seconds).toFixed(0).padStart(7)} evaluated tokens/s  (${queries.length} items, ${seconds.toFixed(2)} s)\n`);
}

process.stdout.write(`CONNER scoring on ${gguf} (1 thread, no cache), ${queries.length} NQ items, u = ${negatives}\n`);
await measure('coherence_sentence', (q) => sentenceCoherence(splitSentences(knowledge.get(q.id)!).map((s) => truncateWords(s)), scorer));
await measure('coherence_paragraph', (q) => paragraphCoherence(knowledge.get(q.id)!, scorer));
await measure('informativeness', (q) => scoreInformativeness(q, knowledge.get(q.id)!, scorer));
const ids = queries.map((q) => q.id);
await measure('helpfulness', (q) =>
  scoreHelpfulness(q, knowledge.get(q.id)!, q.goldAnswer ?? '', sampleNegatives(q.id, ids, negatives, 0).map((id) => ({ id, knowledge: knowledge.get(id)! })), scorer),
);
await provider.close();
