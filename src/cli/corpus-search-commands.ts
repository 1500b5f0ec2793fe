/**
 * `llmkb corpus search|embed`: a corpus's best passages for a query (BM25, dense or hybrid; an
 * OpenSearch index by its own ranking), and the embedding of its passages for dense and hybrid
 * search, with the embedding model of `--embedder` or the config. The corpus modules load inside
 * the actions.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { LlmkbError, UnsupportedCapabilityError } from '../errors.js';
import type { ModelExecutor } from '../executor/model-executor.js';
import { hasKind } from '../providers/model-kinds.js';
import type { Workspace } from '../workspace.js';
import { positiveInteger } from '../methods/cli-options.js';
import { escapeControls } from '../terminal-text.js';

function searchMode(value: string): 'bm25' | 'dense' | 'hybrid' {
  if (value !== 'bm25' && value !== 'dense' && value !== 'hybrid') throw new InvalidArgumentError('must be bm25, dense or hybrid');
  return value;
}

/**
 * The embedding model of `--embedder` or the config (undefined when neither names one), checked
 * to be one before any passage is read.
 */
async function embedderFor(ws: Workspace, spec: string | undefined): Promise<ModelExecutor | undefined> {
  const entry = ws.entryFor('embedder', spec);
  if (entry === undefined) return undefined;
  const executor = await ws.executor(entry);
  const model = executor.model;
  if (!hasKind(model, 'embedding')) {
    throw new UnsupportedCapabilityError(`${model.provider} model ${model.modelId} is not an embedding model (it provides ${model.kinds.join(', ')})`, {
      hint: 'Give an embedding model with --embedder SPEC (e.g. openai:text-embedding-3-small, vllm:URL/MODEL of a server serving an embedding model, or gguf:FILE), or configure one as "embedder" in llmkb.config.json; scripted mock: models do not embed.',
    });
  }
  return executor;
}

/** Adds `search` and `embed` to the `corpus` command. */
export function registerCorpusSearchCommands(corpus: Command, workspace: (command: Command) => Workspace): void {
  corpus
    .command('search')
    .description('the best passages for a natural-language query: BM25 (SQLite FTS5), dense (embeddings) or hybrid (reciprocal-rank fusion of both)')
    .argument('<name>', 'corpus name')
    .argument('<query>', 'the query text (any text: it is never read as FTS5 syntax)')
    .option('-k, --top <k>', 'number of passages', positiveInteger, 5)
    .option(
      '--mode <mode>',
      'bm25, dense or hybrid (dense and hybrid need an embedding model; passages without a vector are embedded first)',
      searchMode,
      'bm25',
    )
    .option('--embedder <spec>', 'embedding model for dense and hybrid search (default: "embedder" in the config)')
    .option('--json', 'print JSON')
    .action(
      async (name: string, query: string, opts: { top: number; mode: 'bm25' | 'dense' | 'hybrid'; embedder?: string; json?: boolean }, command: Command) => {
        const { Corpus, describeUnfinishedAdd, queryTokens, remoteCorpus, remoteRetriever, retrieverFor } = await import('../corpus/index.js');
        if (queryTokens(query).length === 0) {
          throw new LlmkbError(`the search query ${JSON.stringify(query)} has no word to search for`, {
            hint: 'Give the words or the question to search for, e.g. `llmkb corpus search NAME "Who proposed natural selection?"`.',
          });
        }
        const ws = workspace(command);
        try {
          const remote = remoteCorpus(ws.db, name);
          if (remote !== undefined) {
            const passages = await retrieverFor(ws.db, name, { mode: opts.mode }).search(query, opts.top);
            if (opts.json) {
              process.stdout.write(`${JSON.stringify(passages, null, 2)}\n`);
              return;
            }
            process.stdout.write(`${remoteRetriever(remote).description}\n`);
            if (passages.length === 0) process.stdout.write('no passage matches\n');
            for (const h of passages) {
              const where = [h.page === undefined ? '' : `p. ${h.page}`, h.start === undefined || h.end === undefined ? '' : `chars ${h.start}-${h.end}`]
                .filter((x) => x !== '')
                .join('  ');
              process.stdout.write(`${h.rank}. score ${h.score.toFixed(3)}  ${h.docId}${where === '' ? '' : `  ${where}`}\n`);
              process.stdout.write(`   ${h.text.replace(/\s+/g, ' ')}\n`);
            }
            return;
          }
          const c = Corpus.open(ws.db, name);
          for (const u of c.unfinishedAdds()) process.stderr.write(`warning: ${escapeControls(describeUnfinishedAdd(c.name, u))}\n`);
          const embedder = opts.mode === 'bm25' ? undefined : await embedderFor(ws, opts.embedder);
          const hits = await c.retrieve(query, {
            k: opts.top,
            mode: opts.mode,
            ...(embedder === undefined ? {} : { embedder }),
            onEmbedProgress: (p) => {
              if (p.embedded === p.total || p.embedded % 4096 < 256) process.stderr.write(`  embedding passages: ${p.embedded}/${p.total}\n`);
            },
          });
          if (opts.json) {
            process.stdout.write(`${JSON.stringify(hits, null, 2)}\n`);
            return;
          }
          if (hits.length === 0) process.stdout.write('no passage matches\n');
          for (const h of hits) {
            const page = h.page === h.pageEnd ? `p. ${h.page}` : `pp. ${h.page}-${h.pageEnd}`;
            process.stdout.write(
              `${h.rank}. score ${h.score.toFixed(opts.mode === 'hybrid' ? 5 : 3)}  ${h.docId}  ${page}  chars ${h.start}-${h.end}  (passage ${h.passage})\n`,
            );
            process.stdout.write(`   ${h.text.replace(/\s+/g, ' ')}\n`);
          }
        } finally {
          await ws.close();
        }
      },
    );

  corpus
    .command('embed')
    .description('embed the passages of a corpus that have no vector yet (for dense and hybrid search; calls cached, resumable)')
    .argument('<name>', 'corpus name')
    .option('--embedder <spec>', 'embedding model (default: "embedder" in the config)')
    .option('--reset', 'drop the stored vectors first (to embed with another model)')
    .action(async (name: string, opts: { embedder?: string; reset?: boolean }, command: Command) => {
      const { Corpus, describeUnfinishedAdd, remoteCorpus } = await import('../corpus/index.js');
      const ws = workspace(command);
      try {
        if (remoteCorpus(ws.db, name) !== undefined) {
          throw new LlmkbError(`corpus "${name}" is an OpenSearch index: its passages live in the cluster, and llmkb does not embed them`, {
            hint: `Search it with the cluster's own ranking (\`llmkb corpus search ${name} QUERY\`), or add the documents as a local corpus (\`llmkb corpus add\`) to embed them.`,
          });
        }
        const c = Corpus.open(ws.db, name);
        for (const u of c.unfinishedAdds()) process.stderr.write(`warning: ${escapeControls(describeUnfinishedAdd(c.name, u))}\n`);
        const embedder = await embedderFor(ws, opts.embedder);
        if (embedder === undefined)
          throw new LlmkbError('no embedding model', { hint: 'Configure one as "embedder" in llmkb.config.json, or give --embedder SPEC.' });
        if (opts.reset) c.resetVectors();
        const started = performance.now();
        const r = await c.embed(embedder, { onProgress: (p) => process.stderr.write(`  ${p.embedded}/${p.total} passages embedded\n`) });
        const seconds = (performance.now() - started) / 1000;
        process.stdout.write(
          `corpus "${name}": ${r.embedded} passages embedded with ${embedder.model.modelId} in ${seconds.toFixed(1)} s${r.embedded === 0 ? ' (all had vectors)' : ''}\n`,
        );
      } finally {
        await ws.close();
      }
    });
}
