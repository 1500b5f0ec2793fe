/**
 * Child process for the kill -9 test: makes N completion calls through the executor and prints
 * `done <i>` after each call's promise resolves (i.e. after the executor says it is finished).
 */
import { ModelExecutor } from '../../src/executor/model-executor.js';
import { OpenAICompatibleModel } from '../../src/providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../../src/store/call-cache.js';
import { openDatabase } from '../../src/store/database.js';

const [baseURL, dbPath, count] = process.argv.slice(2) as [string, string, string];
const provider = new OpenAICompatibleModel({
  baseURLs: [baseURL],
  model: 'crash-test',
  api: 'completions',
  echo: false,
  topLogprobs: 5,
  flavor: 'vllm',
  concurrency: 8,
});
const executor = new ModelExecutor(provider, { cache: new CallCache(openDatabase(dbPath)) });
await Promise.all(
  Array.from({ length: Number(count) }, async (_, i) => {
    await executor.complete({ prompt: `question ${i}`, maxTokens: 5 });
    process.stdout.write(`done ${i}\n`);
  }),
);
process.stdout.write('all done\n');
