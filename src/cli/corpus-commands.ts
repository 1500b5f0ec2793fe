/**
 * `llmkb corpus add|add-remote|search|embed|list|stats|remove`: document corpora in the workspace
 * store, searched with BM25 (SQLite FTS5), dense or hybrid; or OpenSearch indices registered by
 * name. `search` and `embed` are in corpus-search-commands.ts. The corpus modules (and pdf.js,
 * only when a PDF is met) load inside the actions, so `llmkb --help` does not pay for them.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { LlmkbError } from '../errors.js';
import type { Workspace } from '../workspace.js';
import { positiveInteger, wholeNumber } from '../methods/cli-options.js';
import { escapeControls } from '../terminal-text.js';
import { registerCorpusSearchCommands } from './corpus-search-commands.js';

/** Symbolic links listed by name after an add (all of them with --json). */
const SHOWN_LINKS = 20;

function fmtBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${n} B`;
}

function passageWords(value: string): number {
  const n = positiveInteger(value);
  if (n < 5) throw new InvalidArgumentError('must be at least 5');
  return n;
}

interface AddCliOptions {
  textColumn?: string;
  idColumn?: string;
  textField?: string;
  idField?: string;
  passageWords?: number;
  overlapWords?: number;
  stem: boolean;
  json?: boolean;
}

export function registerCorpusCommands(program: Command, workspace: (command: Command) => Workspace): void {
  const corpus = program.command('corpus').description('document corpora: add files (CSV/TSV, JSON/JSONL, text/Markdown, PDF); BM25, dense and hybrid search');

  corpus
    .command('add')
    .description('add files and folders (recursively) to a corpus, creating it if needed; unchanged files are skipped, changed ones replaced')
    .argument('<name>', 'corpus name (letters, digits, ".", "_", "-")')
    .argument('<paths...>', 'files or folders')
    .option('--text-column <name>', 'CSV/TSV column with the document text (default "article")')
    .option('--id-column <name>', 'CSV/TSV column with the document id (default "filename"; the row number when there is no such column)')
    .option('--text-field <name>', 'JSON/JSONL field with the document text (default "text")')
    .option('--id-field <name>', 'JSON/JSONL field with the document id (default "id"; the line number when absent)')
    .option('--passage-words <n>', 'words per passage (sentence-aware; set when the corpus is created; default 100)', passageWords)
    .option('--overlap-words <n>', 'words shared by consecutive passages (default 20)', wholeNumber)
    .option('--no-stem', 'no English (Porter) stemming in the index (set when the corpus is created)')
    .option('--json', 'print the report as JSON')
    .action(async (name: string, paths: string[], opts: AddCliOptions, command: Command) => {
      const { addFiles } = await import('../corpus/index.js');
      const ws = workspace(command);
      try {
        const err = process.stderr;
        // The corpus library's rule: a corpus this add creates and cannot fill is removed, with an error saying so.
        const {
          corpus: c,
          created,
          report,
          textless,
        } = await addFiles(ws.db, name, paths, {
          ...(opts.passageWords === undefined ? {} : { passageWords: opts.passageWords }),
          ...(opts.overlapWords === undefined ? {} : { overlapWords: opts.overlapWords }),
          ...(opts.stem === false ? { stemming: false } : {}),
          ...(opts.textColumn === undefined ? {} : { textColumn: opts.textColumn }),
          ...(opts.idColumn === undefined ? {} : { idColumn: opts.idColumn }),
          ...(opts.textField === undefined ? {} : { textField: opts.textField }),
          ...(opts.idField === undefined ? {} : { idField: opts.idField }),
          onFile: (file, r) => {
            if (opts.json) return;
            err.write(
              r.status === 'skipped'
                ? `  skipped ${file}: ${r.message}\n`
                : `  ${r.status.padEnd(9)} ${file} (${r.format}): ${r.documents} documents, ${r.passages} passages\n`,
            );
          },
          onProgress: (p) => {
            if (!opts.json) err.write(`  ... ${p.file}: ${p.documents} documents, ${p.passages} passages, ${fmtBytes(p.bytes)}\n`);
          },
          onBoundsProgress: (p) => {
            if (!opts.json && p.total >= 1000) err.write(`  ... BM25 term bounds: ${p.done}/${p.total} ${p.phase}\n`);
          },
        });
        for (const file of textless) err.write(`warning: ${file}: no text to index (empty, only a header, or documents without text)\n`);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify({ corpus: name, created, settings: c.settings, ...report }, null, 2)}\n`);
        } else {
          const d = report.documents;
          const rate =
            report.seconds > 0
              ? `, ${Math.round(report.passages / report.seconds)} passages/s, ${(report.bytes / 1024 / 1024 / report.seconds).toFixed(1)} MB/s`
              : '';
          process.stdout.write(
            `corpus "${name}"${created ? ' (new)' : ''}: ${report.files} files (${report.unchangedFiles} unchanged), documents +${d.added} added, ${d.updated} updated, ${d.unchanged} unchanged, ${d.removed} removed${d.empty > 0 ? `, ${d.empty} empty` : ''}; ${report.passages} passages indexed in ${report.seconds.toFixed(1)} s${rate}${report.bounds === undefined ? '' : ` (BM25 term bounds ${report.bounds.mode === 'full' ? 'computed' : 'updated'}: ${report.bounds.terms} terms, ${report.bounds.seconds.toFixed(1)} s)`}\n`,
          );
          if (report.skipped.length > 0) {
            process.stdout.write(`skipped ${report.skipped.length} file${report.skipped.length === 1 ? '' : 's'} that could not be read:\n`);
            for (const s of report.skipped) process.stdout.write(`  ${s.file}: ${s.reason}: ${s.message}\n`);
          }
          if (report.ignored.length > 0)
            process.stdout.write(
              `ignored ${report.ignored.length} file${report.ignored.length === 1 ? '' : 's'} of no corpus format in the folders (e.g. ${report.ignored[0]})\n`,
            );
          if (report.symlinks.length > 0) {
            process.stdout.write(
              `not followed: ${report.symlinks.length} symbolic link${report.symlinks.length === 1 ? '' : 's'} in the folders (give a link's target, or the link itself, as a path to add it):\n`,
            );
            for (const link of report.symlinks.slice(0, SHOWN_LINKS)) process.stdout.write(`  ${link}\n`);
            if (report.symlinks.length > SHOWN_LINKS) process.stdout.write(`  ... and ${report.symlinks.length - SHOWN_LINKS} more (--json lists them all)\n`);
          }
        }
      } finally {
        await ws.close();
      }
    });

  corpus
    .command('add-remote')
    .description(
      'register an OpenSearch/Elasticsearch index as a corpus: `corpus search` and `conner score --corpus` then query it over HTTP (_search, its own BM25); nothing is copied',
    )
    .argument('<name>', 'corpus name (letters, digits, ".", "_", "-")')
    // Not requiredOption: commander would refuse a missing one before the config's `defaults` could give it.
    .option(
      '--opensearch <url>',
      'cluster address, e.g. https://search.example.org:9200 (no credentials in it: see --auth-env); required, here or in the config\'s "defaults"',
    )
    .option('--index <name>', 'index (or alias) holding one passage per document; required, here or in the config\'s "defaults"')
    .option('--text-field <name>', '_source field with the passage text, matched by the query (default "text")')
    .option('--doc-id-field <name>', "_source field with the document id (default: the hit's _id)")
    .option('--page-field <name>', '_source field with the page number, if the index has one')
    .option('--start-field <name>', '_source field with the start character offset, if any')
    .option('--end-field <name>', '_source field with the end character offset, if any')
    .option(
      '--auth-env <var>',
      'NAME of the environment variable holding the credentials (user:password, or "ApiKey ...", "Bearer ..."); read at search time, never stored or logged',
    )
    .option('--replace', 'register a name that is already registered anew, with these settings only')
    .action(
      async (
        name: string,
        given: {
          opensearch?: string;
          index?: string;
          textField?: string;
          docIdField?: string;
          pageField?: string;
          startField?: string;
          endField?: string;
          authEnv?: string;
          replace?: boolean;
        },
        command: Command,
      ) => {
        const missing = (['opensearch', 'index'] as const).filter((k) => given[k] === undefined).map((k) => `--${k}`);
        if (missing.length > 0)
          throw new LlmkbError(`corpus add-remote needs ${missing.join(' and ')}`, {
            hint: 'Give the cluster and the index: llmkb corpus add-remote NAME --opensearch https://HOST:9200 --index INDEX (or set them in the config: "defaults": {"corpus add-remote": {"opensearch": ..., "index": ...}}).',
          });
        const opts = given as typeof given & { opensearch: string; index: string };
        // Not echoed: a value that is no variable name may be the credentials themselves.
        if (opts.authEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(opts.authEnv)) {
          throw new LlmkbError(
            '--auth-env takes the NAME of an environment variable, and the value given is not one (it is not shown: it may be the credentials)',
            {
              hint: 'Put the credentials in a variable (export OPENSEARCH_AUTH=user:password, or "ApiKey ...") and pass its name: --auth-env OPENSEARCH_AUTH.',
            },
          );
        }
        const { addRemoteCorpus, describeRemote, remoteCorpus } = await import('../corpus/index.js');
        const ws = workspace(command);
        try {
          const before = remoteCorpus(ws.db, name);
          const r = addRemoteCorpus(
            ws.db,
            name,
            {
              url: opts.opensearch,
              index: opts.index,
              ...(opts.textField === undefined ? {} : { textField: opts.textField }),
              ...(opts.docIdField === undefined ? {} : { docIdField: opts.docIdField }),
              ...(opts.pageField === undefined ? {} : { pageField: opts.pageField }),
              ...(opts.startField === undefined ? {} : { startField: opts.startField }),
              ...(opts.endField === undefined ? {} : { endField: opts.endField }),
              ...(opts.authEnv === undefined ? {} : { authEnv: opts.authEnv }),
            },
            { replace: opts.replace === true },
          );
          const was = before === undefined || describeRemote(before) === describeRemote(r) ? '' : ` (replaces ${describeRemote(before)})`;
          process.stdout.write(`corpus "${name}": ${describeRemote(r)}${was}\n`);
        } finally {
          await ws.close();
        }
      },
    );

  registerCorpusSearchCommands(corpus, workspace);

  corpus
    .command('list')
    .description('the corpora in the store')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const { Corpus, describeUnfinishedAdd, listRemoteCorpora } = await import('../corpus/index.js');
      const ws = workspace(command);
      try {
        const list = Corpus.list(ws.db);
        const remotes = listRemoteCorpora(ws.db);
        if (opts.json) {
          process.stdout.write(
            `${JSON.stringify(remotes.length === 0 ? list : [...list, ...remotes.map((r) => ({ name: r.name, createdAt: r.createdAt, remote: { kind: r.kind, ...r.settings } }))], null, 2)}\n`,
          );
          return;
        }
        if (list.length === 0 && remotes.length === 0) process.stdout.write('no corpora yet\n');
        for (const r of remotes)
          process.stdout.write(
            `${r.name}  OpenSearch index ${r.settings.index} at ${new URL(r.settings.url).origin}${r.settings.authEnv === undefined ? '' : ` (credentials from $${r.settings.authEnv})`}\n`,
          );
        for (const c of list) {
          process.stdout.write(
            `${c.name}  ${c.sources} files  ${c.documents} documents  ${c.passages} passages  (passages of ${c.settings.passageWords} words, overlap ${c.settings.overlapWords}, ${c.settings.stemming ? 'Porter stemming' : 'no stemming'})\n`,
          );
          for (const u of c.unfinishedAdds) process.stdout.write(`  warning: ${describeUnfinishedAdd(c.name, u)}\n`);
        }
      } finally {
        await ws.close();
      }
    });

  corpus
    .command('stats')
    .description('size of a corpus: files by format, documents, pages, passages')
    .argument('<name>', 'corpus name')
    .option('--json', 'print JSON')
    .action(async (name: string, opts: { json?: boolean }, command: Command) => {
      const { Corpus, describeUnfinishedAdd, remoteCorpus } = await import('../corpus/index.js');
      const ws = workspace(command);
      try {
        const remote = remoteCorpus(ws.db, name);
        if (remote !== undefined) {
          if (opts.json)
            process.stdout.write(
              `${JSON.stringify({ name: remote.name, createdAt: remote.createdAt, remote: { kind: remote.kind, ...remote.settings } }, null, 2)}\n`,
            );
          else
            process.stdout.write(
              `corpus "${name}" (registered ${remote.createdAt}): OpenSearch index ${remote.settings.index} at ${new URL(remote.settings.url).origin}, text field "${remote.settings.textField ?? 'text'}"; its size is the cluster's to tell (GET /${remote.settings.index}/_count)\n`,
            );
          return;
        }
        const s = Corpus.open(ws.db, name).stats();
        for (const u of s.unfinishedAdds) process.stderr.write(`warning: ${escapeControls(describeUnfinishedAdd(s.name, u))}\n`);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
          return;
        }
        const out = process.stdout;
        out.write(`corpus "${s.name}" (created ${s.createdAt})\n`);
        out.write(
          `  files      ${s.sources} (${
            Object.entries(s.formats)
              .map(([f, n]) => `${f} ${n}`)
              .join(', ') || 'none'
          }), ${fmtBytes(s.bytes)}\n`,
        );
        out.write(`  documents  ${s.documents} (${s.pages} pages, ${s.chars} characters)\n`);
        out.write(
          `  passages   ${s.passages} (mean ${s.passageWordsMean.toFixed(1)} words, max ${s.passageWordsMax}; target ${s.settings.passageWords}, overlap ${s.settings.overlapWords})\n`,
        );
        out.write(`  index      SQLite FTS5 BM25 (k1 = 1.2, b = 0.75), ${s.settings.stemming ? 'Porter stemming' : 'no stemming'}\n`);
      } finally {
        await ws.close();
      }
    });

  corpus
    .command('remove')
    .description('delete a corpus and its index from the store (the source files are not touched)')
    .argument('<name>', 'corpus name')
    .action(async (name: string, _opts: unknown, command: Command) => {
      const { Corpus, CorpusNotFoundError, removeRemoteCorpus } = await import('../corpus/index.js');
      const ws = workspace(command);
      try {
        if (removeRemoteCorpus(ws.db, name)) {
          process.stdout.write(`removed corpus "${name}" (the registration of a remote index; the index itself is not touched)\n`);
          return;
        }
        if (!Corpus.remove(ws.db, name))
          throw new CorpusNotFoundError(
            name,
            Corpus.list(ws.db).map((c) => c.name),
          );
        process.stdout.write(`removed corpus "${name}"\n`);
      } finally {
        await ws.close();
      }
    });
}
