/**
 * CONNER's language-model metrics on the GGUF test model against the bare runtime, in one sitting:
 * for each perplexity-based metric, items/s through llmkb (scorer adapter, executor without a
 * cache, LlamaModel) next to a bare node-llama-cpp loop that evaluates the same token sequences
 * (every (context, continuation) llmkb asked for, recorded) on the same model file with the same
 * threads: per request, clear the sequence, `controlledEvaluate` the tokens with next-token
 * probabilities at the continuation's positions, read each continuation token's probability. The
 * target is llmkb >= 0.8x the bare loop for every metric. Knowledge texts are built from CONNER's
 * NQ test file (the gold passages cut to their first three sentences). Prints its figures; not a
 * timed test.
 *
 *   LLMKB_TEST_GGUF=../shared/models/stories260K.gguf LLMKB_DATA_DIR=../shared/data \
 *     npm run bench:conner -- [items=50] [negatives=5] [rounds=3] [metrics, e.g. informativeness,helpfulness]
 *
 * Each side runs `rounds` times, which goes first alternating, and the best round of each is
 * compared (the machine is shared: the best round is the least disturbed one).
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, LlamaLogLevel, type Token } from 'node-llama-cpp';
import { ModelExecutor, type ExecutableModel } from '../src/executor/model-executor.js';
import { splitSentences } from '../src/methods/conner/evidence/sentences.js';
import type { ConnerQuery } from '../src/methods/conner/generation/conner-queries.js';
import { parseConnerTestFile } from '../src/methods/conner/generation/conner-queries.js';
import { paragraphCoherence, sentenceCoherence } from '../src/methods/conner/scoring/coherence.js';
import { executorTokenScorer } from '../src/methods/conner/scoring/executor-scorers.js';
import { sampleNegatives, scoreHelpfulness } from '../src/methods/conner/scoring/helpfulness.js';
import { scoreInformativeness } from '../src/methods/conner/scoring/informativeness.js';
import { truncateWords } from '../src/methods/conner/scoring/score-knowledge.js';
import type { TokenScorer } from '../src/methods/conner/scoring/scorers.js';
import { LlamaModel } from '../src/providers/llama/llama-model.js';

const gguf = process.env.LLMKB_TEST_GGUF;
const dataDir = process.env.LLMKB_DATA_DIR;
if (!gguf || !dataDir) {
  process.stderr.write('set LLMKB_TEST_GGUF and LLMKB_DATA_DIR\n');
  process.exit(2);
}
const [items = 50, negatives = 5, rounds = 3] = process.argv.slice(2, 5).map(Number);
/** Optional 4th argument: the metrics to run, comma-separated (default: all four). */
const only = process.argv[5]?.split(',');
const file = join(dataDir, 'conner', 'nq_test_random_testset.txt');
const queries = parseConnerTestFile(readFileSync(file, 'utf8'), file).slice(0, items);
const knowledge = new Map(
  queries.map((q) => [
    q.id,
    truncateWords(
      splitSentences(q.referenceKnowledge ?? '')
        .slice(0, 3)
        .join(' '),
    ),
  ]),
);
const ids = queries.map((q) => q.id);

const THREADS = 1;
const provider = await LlamaModel.load({ model: gguf, modelsDir: tmpdir(), sequences: 1, threads: THREADS });
const executor = new ModelExecutor(provider, { cache: null }) as unknown as ModelExecutor<ExecutableModel>;
const llmkbScorer = executorTokenScorer(executor);

// The bare runtime: the same file, one sequence, the same threads and context size.
const llama = await getLlama({ gpu: false, maxThreads: THREADS, logLevel: LlamaLogLevel.error });
const bareModel = await llama.loadModel({ modelPath: gguf });
const bareContext = await bareModel.createContext({ contextSize: provider.contextSize, threads: THREADS });
const bareSequence = bareContext.getSequence();

function tokenize(text: string): Token[] {
  const tokens = bareModel.tokenize(text, false);
  const bos = bareModel.tokens.bos;
  return bareModel.tokens.shouldPrependBosToken && bos !== null ? [bos, ...tokens] : tokens;
}

/** One request the bare way: the whole sequence evaluated afresh, probabilities read at the continuation. */
async function bareLogLikelihood(context: string, continuation: string): Promise<number> {
  const all = tokenize(context + continuation);
  const prefix = Math.max(1, tokenize(context).length);
  await bareSequence.clearHistory();
  const input = all.map((t, i) =>
    i >= prefix - 1 && i < all.length - 1 ? ([t, { generateNext: { probabilities: true } }] as [Token, { generateNext: { probabilities: true } }]) : t,
  );
  const results = await bareSequence.controlledEvaluate(input);
  let sum = 0;
  for (let i = prefix - 1; i < all.length - 1; i++) sum += Math.log(results[i]?.next?.probabilities?.get(all[i + 1]!) ?? Number.MIN_VALUE);
  return sum;
}

type Metric = (q: ConnerQuery, scorer: TokenScorer) => Promise<unknown>;
const METRICS: Array<[string, Metric]> = [
  [
    'coherence_sentence',
    (q, s) =>
      sentenceCoherence(
        splitSentences(knowledge.get(q.id)!).map((x) => truncateWords(x)),
        s,
      ),
  ],
  ['coherence_paragraph', (q, s) => paragraphCoherence(knowledge.get(q.id)!, { fallback: s })],
  ['informativeness', (q, s) => scoreInformativeness(q, knowledge.get(q.id)!, s)],
  [
    'helpfulness',
    (q, s) =>
      scoreHelpfulness(
        q,
        knowledge.get(q.id)!,
        q.goldAnswer ?? '',
        sampleNegatives(q.id, ids, negatives, 0).map((id) => ({ id, knowledge: knowledge.get(id)! })),
        s,
      ),
  ],
];

/** A scorer that records what it is asked and passes it on. */
function recording(inner: TokenScorer, log: Array<[string, string]>): TokenScorer {
  return {
    id: inner.id,
    identity: inner.identity,
    logLikelihood: (context, continuation) => (log.push([context, continuation]), inner.logLikelihood(context, continuation)),
  };
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

process.stdout.write(
  `CONNER scoring on ${gguf} (${THREADS} thread, context ${provider.contextSize}, no cache), ${queries.length} NQ items, u = ${negatives}, best of ${rounds} rounds\n`,
);
process.stdout.write(`${'metric'.padEnd(20)} ${'llmkb items/s'.padStart(14)} ${'bare items/s'.padStart(13)} ${'ratio'.padStart(6)}  requests\n`);
const ratios: number[] = [];
for (const [name, metric] of METRICS.filter(([m]) => only === undefined || only.includes(m))) {
  const requests: Array<[string, string]> = [];
  const scorer = recording(llmkbScorer, requests);
  for (const q of queries) await metric(q, scorer); // warm-up, and the requests the bare loop repeats
  let llmkb = Infinity;
  let bare = Infinity;
  const runLlmkb = async (): Promise<void> => {
    llmkb = Math.min(
      llmkb,
      await timed(async () => {
        for (const q of queries) await metric(q, llmkbScorer);
      }),
    );
  };
  const runBare = async (): Promise<void> => {
    bare = Math.min(
      bare,
      await timed(async () => {
        for (const [context, continuation] of requests) await bareLogLikelihood(context, continuation);
      }),
    );
  };
  // The order alternates, so a busy stretch of the shared machine falls on both sides alike.
  for (let r = 0; r < rounds; r++) {
    for (const side of r % 2 === 0 ? [runLlmkb, runBare] : [runBare, runLlmkb]) await side();
  }
  const ratio = bare / llmkb;
  ratios.push(ratio);
  process.stdout.write(
    `${name.padEnd(20)} ${(queries.length / llmkb).toFixed(1).padStart(14)} ${(queries.length / bare).toFixed(1).padStart(13)} ${ratio.toFixed(2).padStart(6)}  ${requests.length}\n`,
  );
}
process.stdout.write(`target: llmkb >= 0.8x the bare loop for every metric: ${ratios.every((r) => r >= 0.8) ? 'met' : 'NOT met'}\n`);
await bareContext.dispose();
await bareModel.dispose();
await provider.close();
