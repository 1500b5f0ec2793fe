/** A vLLM-shaped /v1/completions server that answers every request after a fixed delay. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const delayMs = Number(process.argv[2] ?? 20);
let n = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { prompt: string; model: string };
    const id = n++;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `cmpl-${id}`,
          object: 'text_completion',
          created: 1700000000,
          model: body.model,
          choices: [{ index: 0, text: ` answer to ${body.prompt.slice(-12)}`, logprobs: null, finish_reason: 'stop', stop_reason: null }],
          usage: { prompt_tokens: 12, total_tokens: 16, completion_tokens: 4 },
        }),
      );
    }, delayMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
