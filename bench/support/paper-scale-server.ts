/**
 * A loopback OpenAI-compatible `/v1/completions` server for `bench/paper-scale.ts`: answers
 * after a fixed delay, plausibly for each prompt of the method (a short answer for QA prompts,
 * "yes"/"no" for judge prompts, a [SEP]-separated list for distractor prompts, a letter for MCQ
 * prompts), deterministically (a hash of the prompt). It also writes every request body it
 * receives, one JSON line each, to `<logDir>/<stage>.jsonl`, where the stage is set by
 * `POST /bench/stage {"stage": "..."}`, so a bare client can replay exactly the same requests.
 *
 *   node --import tsx bench/support/paper-scale-server.ts <delayMs> <logDir>
 * prints its port on the first line of stdout.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { hash, rightAnswer } from './paper-scale-answers.js';

const delayMs = Number(process.argv[2] ?? 20);
const logDir = process.argv[3];
let log: WriteStream | undefined;
let n = 0;

function answer(prompt: string): string {
  if (prompt.startsWith('INSTRUCTION: You need to check')) return hash(prompt) % 3 === 0 ? ' yes' : ' no';
  if (prompt.startsWith('INSTRUCTION: For the given question-answer pair')) {
    const h = hash(prompt);
    return ` ${Array.from({ length: 20 }, (_, i) => `d${(h + i * 7919) % 100_000}`).join(' [SEP] ')}`;
  }
  if (prompt.startsWith('INSTRUCTION: Please answer knowledge-related multi-choice')) return ` ${'ABCDE'[hash(prompt) % 5]}`;
  // QA: the last question of the prompt.
  const at = prompt.lastIndexOf('QUESTION: ');
  const question = prompt.slice(at + 10, prompt.lastIndexOf('\nANSWER:'));
  const h = hash(prompt) % 20;
  if (h < 9) return ` ${rightAnswer(question)}\nQUESTION: and then`;
  if (h < 16) return ` w${(hash(question) + 1 + h) % 9973}`;
  return " I don't know";
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    if (req.url === '/bench/stage') {
      const { stage } = JSON.parse(text) as { stage: string };
      log?.end();
      log = logDir ? createWriteStream(join(logDir, `${stage}.jsonl`)) : undefined;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
      return;
    }
    if (req.url === '/bench/flush') {
      const done = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      };
      if (log) {
        log.end(done);
        log = undefined;
      } else done();
      return;
    }
    if (req.method === 'GET') {
      // GET /v1/models: llmkb asks a server which model it serves (src/providers/served-identity.ts).
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'bench-model', object: 'model', root: 'bench-model' }] }));
      return;
    }
    log?.write(`${text}\n`);
    const body = JSON.parse(text) as { prompt: string; model: string; stop?: string[]; logprobs?: number };
    const id = n++;
    let out = answer(body.prompt);
    for (const s of body.stop ?? []) {
      const cut = out.indexOf(s);
      if (cut !== -1) out = out.slice(0, cut);
    }
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `cmpl-${id}`,
          object: 'text_completion',
          created: 1700000000,
          model: body.model,
          choices: [
            {
              index: 0,
              text: out,
              logprobs: body.logprobs
                ? { tokens: [out], token_logprobs: [-0.5], top_logprobs: [{ [out]: -0.5, ' A': -2, ' B': -2.5, ' C': -3, ' D': -3.5, ' E': -4 }] }
                : null,
              finish_reason: 'stop',
              stop_reason: null,
            },
          ],
          usage: { prompt_tokens: Math.ceil(body.prompt.length / 4), total_tokens: Math.ceil(body.prompt.length / 4) + 4, completion_tokens: 4 },
        }),
      );
    }, delayMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
