/**
 * The loopback OpenAI-compatible test server (openai-compatible-server.ts) as a command, for a
 * study model's `serve:` entry:
 *
 *   node --import tsx test/support/serve-openai-compatible.ts --port {port} [--behaviour guesser] [--delay-ms 50]
 *
 * It answers as scripted-models.ts's `guesser` (or `--behaviour hedger`; `oracle` reads the built
 * data sets in `--data DIR`). It prints one line when it listens (`pid P: listening on URL`) and
 * one line per model call (`call N /completions`), so a test reads from the serve log which
 * process served on which port and how many calls it answered.
 */
import { parseArgs } from 'node:util';
import { startOpenAICompatibleServer } from './openai-compatible-server.js';
import { scriptFor, type Behaviour } from './scripted-models.js';

const { values } = parseArgs({
  options: { port: { type: 'string' }, 'delay-ms': { type: 'string' }, behaviour: { type: 'string' }, data: { type: 'string' } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 1) {
  process.stderr.write('serve-openai-compatible: give --port N\n');
  process.exit(2);
}
let calls = 0;
const server = await startOpenAICompatibleServer(
  {
    ...scriptFor((values.behaviour ?? 'guesser') as Behaviour, values.data ?? '.'),
    ...(values['delay-ms'] ? { delayMs: Number(values['delay-ms']) } : {}),
    fault: (_index, path) => {
      if (path !== '/models') process.stdout.write(`call ${++calls} ${path}\n`);
      return undefined;
    },
  },
  { port },
);
process.stdout.write(`pid ${process.pid}: listening on ${server.url}\n`);
