// The bare client of bench/ask-scale.ts: what `llmkb ask --setting zero-shot` does with nothing
// else: reads the question file, sends each question's zero-shot prompt (the same request body as
// llmkb's) with `fetch` at a fixed concurrency, and writes the responses as JSONL in input order.
//   node bench/support/bare-ask-client.mjs INPUT OUTPUT BASE_URL MODEL CONCURRENCY
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output, baseURL, model, concurrency] = process.argv.slice(2);
const { qaPrompt } = await import('../../dist/methods/reliability/prompts/paper-prompts.js');
const items = readFileSync(input, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
const responses = new Array(items.length);
let next = 0;
async function worker() {
  while (next < items.length) {
    const i = next++;
    const reply = await fetch(`${baseURL}/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, prompt: qaPrompt(items[i].question), max_tokens: 100, temperature: 0 }) });
    if (!reply.ok) throw new Error(`HTTP ${reply.status}`);
    responses[i] = (await reply.json()).choices[0].text;
  }
}
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
writeFileSync(output, items.map((item, i) => JSON.stringify({ ...item, response: responses[i].trim() })).join('\n') + '\n');
