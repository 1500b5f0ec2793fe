import { writeFileSync } from 'node:fs';
import { startScriptedModel } from './test/support/scripted-models.js';
import { main } from './src/cli/main.js';
const work = '/tmp/sw';
const data = `${work}/data`;
const servers = await Promise.all((['oracle', 'guesser', 'hedger'] as const).map((b) => startScriptedModel(b, data)));
const study = {
  name: 'smoke',
  models: [
    { label: 'oracle', spec: `vllm:${servers[0]!.baseURL}/oracle`, params: 7, tuning: 'fine-tuned' },
    { label: 'guesser', spec: `vllm:${servers[1]!.baseURL}/guesser`, params: 13 },
    { label: 'hedger', spec: `vllm:${servers[2]!.baseURL}/hedger`, params: 70, tuning: 'fine-tuned' },
    ...(process.env.GG ? [{ label: 'stories', spec: `gguf:${process.env.LLMKB_TEST_GGUF}` }] : []),
  ],
  settings: ['zero-shot', 'four-shot', 'four-shot-2'], quick: true, limit: 8, maxTokens: 12, mcqs: 3,
  dataDir: process.env.LLMKB_DATA_DIR, data,
};
writeFileSync(`${work}/study.json`, JSON.stringify(study, null, 2));
const t = performance.now();
const code = await main(['node', 'llmkb', '--store', `${work}/s.sqlite`, 'sweep', `${work}/study.json`, '--out', `${work}/out`, ...(process.argv.slice(2))]);
console.error('exit', code, ((performance.now() - t) / 1000).toFixed(1), 's');
await Promise.all(servers.map((s) => s.close()));
