import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { SourceFileKey } from '../data/source-files.js';
import type { CliHost, MethodWorkspace } from '../../method-cli.js';
import { PAPER_CUTOFF } from '../defaults.js';
import { checkOutputFolder, checkSourceDataDir, isoDate, positiveInteger, wholeNumber } from '../../cli-options.js';
import { escapeControls } from '../../../terminal-text.js';

interface DataOptions {
  dataDir?: string;
  out: string;
  seed: number;
}

function common(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'local copies of the source files (default: $LLMKB_DATA_DIR); nothing is downloaded when given')
    .option('--out <dir>', 'output folder', 'llmkb-data')
    .option('--seed <n>', 'random seed', wholeNumber, 42);
}

/**
 * The output folder, the source folder and, in it, the source files (SOURCE_FILES keys) the
 * command reads, checked before any work (the store is not even opened); the source folder, if
 * any, is returned for sourceOptions.
 */
async function checkDataOptions(opts: DataOptions, sources: readonly SourceFileKey[]): Promise<string | undefined> {
  checkOutputFolder(opts.out);
  const dataDir = checkSourceDataDir(opts.dataDir);
  if (dataDir !== undefined) (await import('../data/build-datasets.js')).checkLocalSources(sources, resolve(dataDir));
  return dataDir;
}

function sourceOptions(ws: MethodWorkspace, opts: DataOptions, dataDir: string | undefined) {
  return { outDir: resolve(opts.out), seed: opts.seed, cacheDir: ws.cacheDir, ...(dataDir ? { dataDir: resolve(dataDir) } : {}) };
}

export function registerDataCommands(program: Command, host: CliHost): void {
  const data = program.command('data').description('build the question sets: SeenQA, UnseenQA and the few-shot repositories');

  data
    .command('from-corpus')
    .description(
      'build a QA set from a corpus: one factoid question per sampled passage by a question-writer LLM, answers verified as spans of the passage, with a card',
    )
    .argument('<name>', 'corpus name (see `llmkb corpus list`)')
    .option('--count <n>', 'questions wanted', positiveInteger, 100)
    .option('--out <dir>', 'output folder', 'llmkb-data')
    .option('--seed <n>', 'random seed of the passage sample', wholeNumber, 42)
    .option('--question-writer <spec>', 'the question-writer LLM (default: "question_writer" in the config)')
    .option('--max-answer-words <n>', 'longest answer kept, in words', positiveInteger, 5)
    .option(
      '--max-passages <n>',
      'the most passages to try (default: draw until --count questions are kept or every passage of at least 20 words was tried)',
      positiveInteger,
    )
    .option(
      '--date-field <name>',
      'document metadata field with the publication date, kept on every item (default: the first of date, published, publication_date, ... a document has)',
    )
    .addHelpText(
      'after',
      `
The question writer gets one passage per call (prompt corpus-question-v1) and must reply with a
line "QUESTION: <question>" and a line "ANSWER: <answer>", and may add "TYPE: <person|location|
time|number|other>"; text around them is ignored, the first of each line counts, quotes around
the question and the answer are dropped. A scripted writer (mock:FILE) answers a rule such as
  {"regex": "^INSTRUCTION: Write one factoid question", "reply": "QUESTION: ...\\nANSWER: ..."}
A question is kept only if it ends in "?" and has at least four words, does not need the passage
in view ("according to the text", "the authors", ...), does not contain its answer and is not a
repeat; the answer must be at most --max-answer-words words and occur in the passage (case,
punctuation and spacing ignored). No question kept: exit 3, with the rejections by reason.`,
    )
    .action(
      async (
        name: string,
        opts: { count: number; out: string; seed: number; questionWriter?: string; maxAnswerWords: number; maxPassages?: number; dateField?: string },
        command: Command,
      ) => {
        const { Corpus, describeUnfinishedAdd } = await import('../../../corpus/index.js');
        const { buildCorpusQuestions } = await import('../data/corpus-questions.js');
        const { datesLine, noQuestionsError, stopText, writeCorpusQuestions } = await import('../data/corpus-question-card.js');
        const { LlmkbError } = await import('../../../errors.js');
        checkOutputFolder(opts.out);
        await host.withWorkspace(command, async (ws) => {
          const corpus = Corpus.open(ws.db, name);
          for (const u of corpus.unfinishedAdds()) process.stderr.write(`warning: ${escapeControls(describeUnfinishedAdd(corpus.name, u))}\n`);
          const entry = ws.entryFor('question_writer', opts.questionWriter);
          if (entry === undefined)
            throw new LlmkbError('no question-writer model', {
              hint: 'Configure one as "question_writer" in llmkb.config.json, or give --question-writer SPEC.',
            });
          const writer = await ws.executor(entry);
          const report = await buildCorpusQuestions(corpus, writer, {
            count: opts.count,
            seed: opts.seed,
            maxAnswerWords: opts.maxAnswerWords,
            ...(opts.maxPassages === undefined ? {} : { maxPassages: opts.maxPassages }),
            ...(opts.dateField === undefined ? {} : { dateField: opts.dateField }),
            onProgress: (p) => process.stderr.write(`  ${p.kept}/${opts.count} questions kept of ${p.tried} passages tried (at most ${p.maxPassages})\n`),
          });
          if (report.items.length === 0) throw noQuestionsError(report, name, opts.maxAnswerWords);
          const written = writeCorpusQuestions(report, {
            outDir: resolve(opts.out),
            corpus,
            seed: opts.seed,
            count: opts.count,
            maxAnswerWords: opts.maxAnswerWords,
            ...(opts.dateField === undefined ? {} : { dateField: opts.dateField }),
          });
          const rejected = Object.entries(report.rejected).filter(([, n]) => n > 0);
          process.stdout.write(
            `corpus "${name}": ${report.items.length} questions -> ${written.file} (sha256 ${written.sha256.slice(0, 12)}…), ${report.tried} passages tried\n`,
          );
          process.stdout.write(
            `rejected: ${rejected.length === 0 ? 'none' : rejected.map(([r, n]) => `${r} ${n}`).join(', ')}; card: ${written.cardMarkdown}\n`,
          );
          if (report.items.length < opts.count) process.stdout.write(`fewer questions than asked for: ${stopText(report)}\n`);
          process.stdout.write(`${datesLine(report, opts.dateField)}\n`);
        });
      },
    );

  common(data.command('seenqa'))
    .description('build SeenQA: factoid filter, time-sensitive questions removed, seeded sample per source')
    .option('--per-source <n>', 'questions per source', positiveInteger, 1000)
    .option('--filter-model <spec>', 'LLM for the time-sensitive check (default: the configured judge)')
    .option('--no-llm-filter', 'use the keyword rule even when a judge is configured')
    .option('--batch-size <n>', 'questions per time-sensitive prompt', positiveInteger, 20)
    .option('--popqa-longtail', 'also draw --per-source questions from the PopQA long-tail subset, as source "popqa-longtail" (not in the paper\'s SeenQA)')
    .option('--force', 'replace a SeenQA in --out that was built with other parameters (without it the command refuses)')
    .action(
      async (
        opts: DataOptions & { perSource: number; filterModel?: string; llmFilter: boolean; batchSize: number; popqaLongtail?: boolean; force?: boolean },
        command: Command,
      ) => {
        const { buildSeenQAFiles, sourcesOf } = await import('../data/build-datasets.js');
        const { KEYWORD_RULE_QUALITY } = await import('../data/time-sensitive.js');
        const dataDir = await checkDataOptions(opts, sourcesOf('seenqa', { popqaLongtail: opts.popqaLongtail === true }));
        const { keepBuiltSet } = await import('../data/keep-built-set.js');
        const { SEEN_SOURCES } = await import('../data/seenqa.js');
        keepBuiltSet(
          resolve(opts.out),
          'seenqa.jsonl',
          { seed: opts.seed, perSource: opts.perSource, sources: [...SEEN_SOURCES, ...(opts.popqaLongtail ? ['popqa-longtail'] : [])] },
          opts.force === true,
          `llmkb data seenqa --out ${opts.out} --per-source ${opts.perSource}`,
        );
        await host.withWorkspace(command, async (ws) => {
          const entry = opts.llmFilter ? ws.entryFor('judge', opts.filterModel) : undefined;
          const executor = entry === undefined ? undefined : await ws.executor(entry);
          const report = await buildSeenQAFiles({
            ...sourceOptions(ws, opts, dataDir),
            perSource: opts.perSource,
            batchSize: opts.batchSize,
            popqaLongtail: opts.popqaLongtail === true,
            ...(executor ? { timeSensitiveExecutor: executor } : {}),
          });
          const out = process.stdout;
          out.write(`SeenQA: ${report.items} questions -> ${report.file} (sha256 ${report.checksum.slice(0, 12)}…)\n`);
          const rule = KEYWORD_RULE_QUALITY;
          out.write(
            `time-sensitive check: ${report.method.kind === 'llm' ? `LLM ${report.method.model}` : `keyword rule ${report.method.kind} (no LLM configured: approximate; precision ${rule.precision}, recall ${rule.recall} on ${rule.questions} labelled questions)`}\n`,
          );
          out.write('source           pool  dupl  why  multi  long  factoid  examined  time-sens  kept\n');
          for (const s of report.sources) {
            const st = report.stats[s]!;
            out.write(
              `${s.padEnd(15)} ${String(st.pool).padStart(5)} ${String(st.duplicates).padStart(5)} ${String(st.removed['why-question']).padStart(4)} ${String(st.removed['multiple-answers']).padStart(6)} ${String(st.removed['long-answer']).padStart(5)} ${String(st.factoid).padStart(8)} ${String(st.examined).padStart(9)} ${String(st.timeSensitive).padStart(10)} ${String(st.kept).padStart(5)}\n`,
            );
          }
          for (const s of report.sources) {
            const p = report.stats[s]!.popularity;
            if (p) out.write(`${s}: ${p.longTail} of ${p.known} questions long-tail (subject popularity < 100)\n`);
          }
        });
      },
    );

  common(data.command('unseenqa'))
    .description('generate UnseenQA from the 20 templates of the paper (Table 1)')
    .option('--cutoff <date>', "the evaluated model's knowledge cutoff (YYYY-MM-DD); future-event templates must be after it", isoDate, PAPER_CUTOFF)
    .option('--per-template <n>', 'questions per template', positiveInteger, 150)
    .option('--force', 'replace an UnseenQA in --out that was built with other parameters (without it the command refuses)')
    .action(async (opts: DataOptions & { cutoff: string; perTemplate: number; force?: boolean }, command: Command) => {
      const { buildUnseenQAFiles, sourcesOf } = await import('../data/build-datasets.js');
      const dataDir = await checkDataOptions(opts, sourcesOf('unseenqa'));
      const { keepBuiltSet } = await import('../data/keep-built-set.js');
      keepBuiltSet(
        resolve(opts.out),
        'unseenqa.jsonl',
        { seed: opts.seed, perTemplate: opts.perTemplate, cutoff: opts.cutoff },
        opts.force === true,
        `llmkb data unseenqa --out ${opts.out} --per-template ${opts.perTemplate}`,
      );
      await host.withWorkspace(command, async (ws) => {
        const report = await buildUnseenQAFiles({ ...sourceOptions(ws, opts, dataDir), cutoff: opts.cutoff, perTemplate: opts.perTemplate });
        process.stdout.write(
          `UnseenQA: ${report.items} questions from ${report.templates} templates -> ${report.file} (sha256 ${report.checksum.slice(0, 12)}…)\n`,
        );
        for (const d of report.dropped) process.stdout.write(`dropped ${d.id}: ${d.reason}\n`);
      });
    });

  common(data.command('repositories'))
    .description('build the few-shot repositories R_seen and R_unseen, disjoint from SeenQA and UnseenQA in --out')
    .option('--cutoff <date>', 'the cutoff UnseenQA was built with', isoDate, PAPER_CUTOFF)
    .option('--per-template <n>', 'the --per-template UnseenQA was built with', positiveInteger, 150)
    .action(async (opts: DataOptions & { cutoff: string; perTemplate: number }, command: Command) => {
      const { buildRepositoryFiles, repositoryInputs, sourcesOf } = await import('../data/build-datasets.js');
      const dataDir = await checkDataOptions(opts, sourcesOf('repositories'));
      repositoryInputs(resolve(opts.out));
      await host.withWorkspace(command, async (ws) => {
        const report = await buildRepositoryFiles({ ...sourceOptions(ws, opts, dataDir), cutoff: opts.cutoff, perTemplate: opts.perTemplate });
        process.stdout.write(
          `R_seen: ${report.rSeen.items} pairs (${Object.entries(report.rSeen.counts)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}) -> ${report.rSeen.file}\n`,
        );
        process.stdout.write(`R_unseen: ${report.rUnseen.items} questions answered "unsure" -> ${report.rUnseen.file}\n`);
      });
    });
}
