/**
 * Scorer throughput on the GGUF test model (in-process, one thread, no cache): items/s for
 * `scoreTokens` (CONNER's sentence perplexity / informativeness / helpfulness) and `classify`
 * (an LLM prompted for NLI), through the executor. Helpfulness scores one query+knowledge prefix
 * with several answers: measured with and without prefix reuse. Prints its figures; not a test.
 *
 *   LLMKB_TEST_GGUF=../shared/models/stories260K.gguf npm run bench:scoring -- [items=300]
 */
import { tmpdir } from 'node:os';
import { ModelExecutor } from '../src/executor/model-executor.js';
import { LlamaModel } from '../src/providers/llama/llama-model.js';
import { LlmClassifier } from '../src/providers/llm-classifier/llm-classifier.js';

const gguf = process.env.LLMKB_TEST_GGUF;
if (!gguf) {
  process.stderr.write('bench:scoring needs LLMKB_TEST_GGUF (e.g. ../shared/models/stories260K.gguf)\n');
  process.exit(2);
}
const [items = 300] = process.argv.slice(2).map(Number);
const names = ['Lily', 'Tom', 'Sue', 'Ben', 'Max', 'Anna'];
const places = ['park', 'school', 'garden', 'beach', 'shop', 'forest'];
const query = (i: number): string => `Question: where did ${names[i % names.length]} go on day ${i}?\n`;
const knowledge = (i: number): string =>
  `Knowledge: ${names[i % names.length]} went to the ${places[i % places.length]} with a friend. They played with a big red ball and had fun all day.\n`;
const answer = (j: number): string => `Answer: the ${places[j % places.length]}`;

async function run(label: string, reusePrefix: boolean, work: (ex: ModelExecutor<LlamaModel>, i: number) => Promise<unknown>, count: number): Promise<number> {
  const model = await LlamaModel.load({ model: gguf!, modelsDir: tmpdir(), threads: 1, reusePrefix });
  const ex = new ModelExecutor(model, { cache: null });
  await work(ex, -1); // warm-up
  const started = performance.now();
  for (let i = 0; i < count; i++) await work(ex, i);
  const seconds = (performance.now() - started) / 1000;
  const perS = count / seconds;
  process.stdout.write(
    `${label.padEnd(58)} ${String(count).padStart(5)} items  ${perS.toFixed(1).padStart(8)} items/s  evaluated tokens ${ex.accounting.evaluatedTokens} of ${ex.accounting.promptTokens}\n`,
  );
  await model.close();
  return perS;
}

process.stdout.write(`stories260K, 1 thread, no cache, node ${process.version}\n`);
// Sentence perplexity: each sentence alone (empty context).
await run(
  'scoreTokens: sentence (empty context)',
  true,
  (ex, i) => ex.scoreTokens({ context: '', continuation: knowledge(i + 1000).replace('Knowledge: ', '') }),
  items,
);
// Informativeness: the knowledge given the query.
await run('scoreTokens: knowledge given query', true, (ex, i) => ex.scoreTokens({ context: query(i + 1000), continuation: knowledge(i + 1000) }), items);
// Helpfulness: one query+knowledge prefix, u = 4 answers each (5 calls per item).
const helpfulness = (ex: ModelExecutor<LlamaModel>, i: number): Promise<unknown> =>
  (async () => {
    for (let j = 0; j < 5; j++) await ex.scoreTokens({ context: query(i + 1000) + knowledge(i + 1000), continuation: answer(i + j) });
  })();
const withReuse = await run('scoreTokens: helpfulness (item = prefix x 5 answers), reuse', true, helpfulness, Math.ceil(items / 5));
const without = await run('scoreTokens: helpfulness (item = prefix x 5 answers), none', false, helpfulness, Math.ceil(items / 5));
process.stdout.write(`prefix reuse speed-up on helpfulness: x${(withReuse / without).toFixed(2)}\n`);
// classify: NLI by an LLM prompted (label words that are single tokens of stories260K).
{
  const model = await LlamaModel.load({ model: gguf!, modelsDir: tmpdir(), threads: 1 });
  const classifier = new LlmClassifier({ model, task: 'nli', labelWords: { entailment: ['the', 'The'], neutral: ['a'], contradiction: ['he', 'He'] } });
  const ex = new ModelExecutor(classifier, { cache: null });
  // Distinct pairs (the executor sends a repeated pair once).
  const pairs = Array.from({ length: items }, (_, i) => ({
    text: knowledge(i + 2000),
    textPair: `${names[(i + 1) % names.length]} went to the ${places[i % places.length]} on day ${i}.`,
  }));
  await ex.classify({ task: 'nli', pairs: pairs.slice(0, 2) });
  const started = performance.now();
  await ex.classify({ task: 'nli', pairs: pairs.slice(2) });
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    `${'classify: NLI by a prompted LLM (llm-nli:), batches of 32'.padEnd(58)} ${String(items - 2).padStart(5)} items  ${((items - 2) / seconds).toFixed(1).padStart(8)} items/s\n`,
  );
  await model.close();
}
