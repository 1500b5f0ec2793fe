import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
// Types only at the top; the modules load inside the actions (start-up time, see cli-defaults.ts).
import type { AskedRecord, PromptSetting } from '../asking/ask-questions.js';
import type { QAItem } from '../data/qa-item.js';
import { InputFileError, LlmkbError } from '../../../errors.js';
import type { JudgedRecord } from '../judging/judge-response.js';
import type { ShotSelector } from '../prompts/shot-selector.js';
import type { CliHost, MethodWorkspace } from '../../method-cli.js';
import { ANSWER_MAX_TOKENS, LEXICAL_JUDGE_ID, MODE_AGREEMENT_SAMPLE, PROMPT_SETTINGS } from '../defaults.js';
import { checkOutputFile, collect, optionalRoleEntry, positiveInteger, wholeNumber } from '../../cli-options.js';
import { requireFile } from '../../../io/require-path.js';
import { checkMaxTokens } from '../../token-budget.js';
import { escapeControls } from '../../../terminal-text.js';

/** Few-shot selector: embeddings from the configured embedder, else BM25. */
export async function shotSelector(ws: MethodWorkspace, rSeenFile: string, rUnseenFile: string, embedderSpec?: string): Promise<ShotSelector> {
  const { readQAItems } = await import('../data/qa-item.js');
  const { Bm25ShotSelector, EmbeddingShotSelector } = await import('../prompts/shot-selector.js');
  const rSeen = readQAItems(requireFile(rSeenFile, 'Build the repositories with `llmkb data repositories`, or pass --r-seen.'));
  const rUnseen = readQAItems(requireFile(rUnseenFile, 'Build the repositories with `llmkb data repositories`, or pass --r-unseen.'));
  const entry = optionalRoleEntry(ws, 'embedder', embedderSpec);
  if (entry === undefined) return new Bm25ShotSelector(rSeen, rUnseen);
  return new EmbeddingShotSelector(await ws.executor(entry), rSeen, rUnseen);
}

/** `--limit N` of `judge`, which has no --seed. */
export const LIMIT_SEED = 42;

export const LIMIT_HELP =
  'only N items, for a quick look: a seeded sample (split between seen and unseen questions in proportion, kept in file order); a run of its own';

/** `--limit N`: the seeded sample (src/sampling/limit-items.ts), said on stderr when it cuts anything. */
export async function limited<T>(items: T[], limit: number | undefined, seed: number, what: string): Promise<T[]> {
  const { limitNote, limitSample } = await import('../../../sampling/limit-items.js');
  const sampled = await limitSample(items, limit, seed);
  if (sampled.cut) process.stderr.write(`${escapeControls(limitNote(sampled.cut.n, [sampled.cut], what))}\n`);
  return [...sampled.items];
}

export function registerStageCommands(program: Command, host: CliHost): void {
  program
    .command('ask')
    .description('ask a model every question under one prompt setting (paper Table 6); resumable')
    .option('-m, --model <spec>', 'model under test (default: "model" in the config)')
    .addOption(new Option('--setting <name>', 'prompt setting').choices([...PROMPT_SETTINGS]).default('zero-shot'))
    .option('--data <dir>', 'folder with seenqa.jsonl, unseenqa.jsonl, r_seen.jsonl, r_unseen.jsonl', 'llmkb-data')
    .option('--input <file>', 'question file(s) in the item format (default: SeenQA + UnseenQA from --data)', collect)
    .option('--r-seen <file>', 'R_seen repository (default: --data/r_seen.jsonl)')
    .option('--r-unseen <file>', 'R_unseen repository (default: --data/r_unseen.jsonl)')
    .option('--embedder <spec>', 'embedding model for shot selection (default: "embedder" in the config; none: BM25)')
    .option('--seed <n>', 'seed for shot order', wholeNumber, 42)
    .option('--max-tokens <n>', 'maximum new tokens', positiveInteger, ANSWER_MAX_TOKENS)
    .option('--reduce-shots', 'drop shots until a prompt fits the context window (recorded per item) instead of failing')
    .option('-o, --output <file>', 'responses JSONL', 'responses.jsonl')
    .option('--limit <n>', `${LIMIT_HELP} (seed --seed)`, positiveInteger)
    .action(
      async (
        opts: {
          model?: string;
          setting: PromptSetting;
          data: string;
          input?: string[];
          rSeen?: string;
          rUnseen?: string;
          embedder?: string;
          seed: number;
          maxTokens: number;
          reduceShots?: boolean;
          output: string;
          limit?: number;
        },
        command: Command,
      ) => {
        const { askRun, runAskStage } = await import('../asking/ask-questions.js');
        const { DATASET_FILES } = await import('../data/build-datasets.js');
        const { readQAItems } = await import('../data/qa-item.js');
        const { OrderedJsonlFile } = await import('../../../io/ordered-jsonl-file.js');
        checkOutputFile(opts.output, [...(opts.input ?? Object.values(DATASET_FILES).map((f) => join(opts.data, f))), opts.rSeen, opts.rUnseen]);
        await host.withWorkspace(command, async (ws) => {
          const entry = ws.entryFor('model', opts.model);
          if (entry === undefined) throw new LlmkbError('no model to ask', { hint: 'Pass --model SPEC or set "model" in llmkb.config.json.' });
          const files = opts.input ?? [join(opts.data, DATASET_FILES.seenqa), join(opts.data, DATASET_FILES.unseenqa)];
          const all: QAItem[] = files.flatMap((f) =>
            readQAItems(requireFile(f, 'Build the data sets with `llmkb data seenqa` / `llmkb data unseenqa`, or pass --input.')),
          );
          const ids = new Set<string>();
          for (const item of all) {
            if (ids.has(item.id))
              throw new LlmkbError(`duplicate question id "${item.id}" across ${files.join(', ')}`, {
                hint: 'Question ids must be unique across all input files.',
              });
            ids.add(item.id);
          }
          const items = await limited(all, opts.limit, opts.seed, 'questions');
          const selector =
            opts.setting === 'zero-shot'
              ? undefined
              : await shotSelector(
                  ws,
                  opts.rSeen ?? join(opts.data, DATASET_FILES.rSeen),
                  opts.rUnseen ?? join(opts.data, DATASET_FILES.rUnseen),
                  opts.embedder,
                );
          const executor = await ws.executor(entry);
          checkMaxTokens(executor, opts.maxTokens, '--max-tokens');
          const options = {
            items,
            executor,
            setting: opts.setting,
            seed: opts.seed,
            maxTokens: opts.maxTokens,
            reduceShots: opts.reduceShots ?? false,
            runs: ws.runs,
            label: typeof entry === 'string' ? entry : entry.spec,
            ...(selector ? { selector } : {}),
          };
          const run = askRun(options);
          // The output is written as the answers come (in question order), not built at the end:
          // records of an earlier, stopped run of the same questions are read from the store in turn.
          const before = new Set(run.recordIds('ask'));
          let dropped = 0;
          const output = new OrderedJsonlFile<AskedRecord>(resolve(opts.output), items.length, (position, last) => {
            const id = items[position]!.id;
            const record = before.has(id) || last ? run.record<AskedRecord>('ask', id) : undefined;
            if (record?.shotsDropped) dropped++;
            return record;
          });
          try {
            await runAskStage({
              ...options,
              run,
              onRecord: (position, record) => {
                if (record.shotsDropped) dropped++;
                output.put(position, record);
              },
            });
            output.finish();
          } finally {
            output.abort();
          }
          process.stdout.write(
            `asked ${items.length} questions (${opts.setting}${selector ? `, shots by ${selector.id}` : ''}) -> ${opts.output}  [run ${run.id}]\n`,
          );
          if (dropped) process.stdout.write(`${dropped} prompts had shots dropped to fit the context window (field "shotsDropped")\n`);
        });
      },
    );

  program
    .command('judge')
    .description('label responses correct / wrong / uninformative (works on any JSONL of questions + "response")')
    .requiredOption('-i, --input <file>', 'JSONL records: the item fields plus "response"')
    .option('-o, --output <file>', 'labelled JSONL', 'labeled.jsonl')
    .option('--judge <spec>', 'judge LLM (default: "judge" in the config)')
    .option('--no-judge', 'no judge LLM: the lexical rule decides, and labels are marked approximate')
    .option('--limit <n>', `${LIMIT_HELP} (seed ${LIMIT_SEED})`, positiveInteger)
    .action(async (opts: { input: string; output: string; judge?: string | false; limit?: number }, command: Command) => {
      const { readJsonl, toJsonl } = await import('../../../io/jsonl.js');
      const { writeFileAtomic } = await import('../../../io/files.js');
      const { judgeRecords } = await import('../judging/judge-records.js');
      const { ResponseJudge, responseRecordSchema } = await import('../judging/judge-response.js');
      checkOutputFile(opts.output, [opts.input]);
      await host.withWorkspace(command, async (ws) => {
        const records = await limited(
          readJsonl(requireFile(opts.input, 'Produce responses with `llmkb ask`, or bring your own JSONL.'), responseRecordSchema, 'response record', {
            uniqueIds: true,
          }),
          opts.limit,
          LIMIT_SEED,
          'responses',
        );
        const entry = opts.judge === false ? undefined : ws.entryFor('judge', opts.judge);
        const executor = entry === undefined ? undefined : await ws.executor(entry);
        const judge = new ResponseJudge(executor ? { judge: executor } : {});
        const { records: judged, summary } = await judgeRecords({
          records,
          judge,
          judgeIdentity: executor ? executor.model.cacheIdentity : LEXICAL_JUDGE_ID,
          ...(executor ? { judgeExecutor: executor } : {}),
          runs: ws.runs,
        });
        writeFileAtomic(resolve(opts.output), toJsonl(judged));
        process.stdout.write(`judged ${summary.records} responses -> ${opts.output}\n`);
        process.stdout.write(
          `labels: ${Object.entries(summary.labels)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}\n`,
        );
        process.stdout.write(
          `decided by: ${Object.entries(summary.judgedBy)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}\n`,
        );
        if (summary.stats.unparseableReplies)
          process.stdout.write(
            `judge replies that did not start with yes/no: ${summary.stats.unparseableReplies} (retried once; ${summary.stats.lexicalFallbacks} fell back to the lexical rule)\n`,
          );
        if (summary.approximate)
          process.stdout.write(
            `APPROXIMATE: no judge LLM was used for some seen responses; their correct/wrong labels come from the lexical rule (${LEXICAL_JUDGE_ID}).\n`,
          );
      });
    });

  program
    .command('consistency')
    .description('re-ask every correct or wrong response as 20 multiple-choice questions and score Cons(q, r); resumable')
    .requiredOption('-i, --input <file>', 'labelled records (output of `llmkb judge`)')
    .option('-o, --output <file>', 'records with "consistency"', 'consistency.jsonl')
    .option('-m, --model <spec>', 'model under test (default: "model" in the config)')
    .option('--distractor <spec>', 'distractor LLM (default: "distractor" in the config)')
    .option('--no-distractor-llm', 'build distractors from the answer pool only')
    .addOption(
      new Option('--mode <mode>', 'MCQ answer mode (default: generate, as the paper; logprobs is faster, a departure)').choices(['logprobs', 'generate']),
    )
    .option('--mcqs <n>', 'MCQs per (question, response)', positiveInteger, 20)
    .option('--seed <n>', 'seed for distractor sampling and option order', wholeNumber, 42)
    .option('--data <dir>', 'folder with r_seen.jsonl / r_unseen.jsonl, to give MCQs the same shots as the QA prompt', 'llmkb-data')
    .option(
      '--compare-modes <n>',
      'answer the MCQs of n sampled pairs in the other mode too and report how often the modes agree (0: off)',
      wholeNumber,
      MODE_AGREEMENT_SAMPLE,
    )
    .option('--limit <n>', `${LIMIT_HELP} (seed --seed)`, positiveInteger)
    .action(
      async (
        opts: {
          input: string;
          output: string;
          model?: string;
          distractor?: string;
          distractorLlm: boolean;
          mode?: 'logprobs' | 'generate';
          mcqs: number;
          seed: number;
          data: string;
          compareModes: number;
          limit?: number;
        },
        command: Command,
      ) => {
        const { shotsFromIds } = await import('../asking/ask-questions.js');
        const { compareAnswerModes, modeAgreementLine, runConsistency } = await import('../consistency/consistency-stage.js');
        const { DATASET_FILES } = await import('../data/build-datasets.js');
        const { lineOfJsonlId, readJsonl, toJsonl } = await import('../../../io/jsonl.js');
        const { readQAItems } = await import('../data/qa-item.js');
        const { writeFileAtomic } = await import('../../../io/files.js');
        const { judgedRecordSchema } = await import('../judging/judge-response.js');
        checkOutputFile(opts.output, [opts.input, ...Object.values(DATASET_FILES).map((f) => join(opts.data, f))]);
        await host.withWorkspace(command, async (ws) => {
          const records = await limited(
            readJsonl(requireFile(opts.input, 'Label responses with `llmkb judge` first.'), judgedRecordSchema, 'labelled record', { uniqueIds: true }),
            opts.limit,
            opts.seed,
            'labelled responses',
          );
          const entry = ws.entryFor('model', opts.model);
          if (entry === undefined)
            throw new LlmkbError('no model under test', { hint: 'Pass --model SPEC (the model that gave the responses) or set "model" in llmkb.config.json.' });
          // Shots first (no model loaded yet): MCQs must be asked with the QA prompt's shots, and
          // asking without them would measure a different prompt while looking like success.
          const rSeenFile = join(opts.data, DATASET_FILES.rSeen);
          const rUnseenFile = join(opts.data, DATASET_FILES.rUnseen);
          const withShots = records.some((r) => Array.isArray(r.shots) && (r.shots as unknown[]).length > 0);
          const missing = [rSeenFile, rUnseenFile].filter((f) => !existsSync(f));
          if (withShots && missing.length > 0) {
            throw new LlmkbError(
              `the records carry few-shot examples (field "shots"), but the repositor${missing.length === 1 ? 'y' : 'ies'} ${missing.join(' and ')} ${missing.length === 1 ? 'was' : 'were'} not found`,
              {
                hint: 'Pass --data DIR, the folder with r_seen.jsonl and r_unseen.jsonl the responses were asked with (build them with `llmkb data repositories`).',
              },
            );
          }
          const repos = withShots ? { rSeen: readQAItems(rSeenFile), rUnseen: readQAItems(rUnseenFile) } : undefined;
          // Every record's shots are found before any model loads: a shot missing from the
          // repositories means they are not the ones the responses were asked with.
          if (repos) {
            for (const r of records) {
              try {
                shotsFromIds(r.shots as string[] | undefined, repos.rSeen, repos.rUnseen);
              } catch (error) {
                if (!(error instanceof LlmkbError)) throw error;
                throw new InputFileError(opts.input, lineOfJsonlId(opts.input, r.id), 'shots', `record "${r.id}": ${error.message} (${opts.data})`, error.hint);
              }
            }
          }
          const executor = await ws.executor(entry);
          const distractorEntry = opts.distractorLlm ? ws.entryFor('distractor', opts.distractor) : undefined;
          const distractor = distractorEntry === undefined ? undefined : await ws.executor(distractorEntry);
          const shotsFor = repos ? (r: JudgedRecord) => shotsFromIds(r.shots as string[] | undefined, repos.rSeen, repos.rUnseen) : undefined;
          const {
            run,
            records: scored,
            diagnostics,
          } = await runConsistency({
            records,
            executor,
            ...(distractor ? { distractor } : {}),
            ...(opts.mode ? { mode: opts.mode } : {}),
            mcqs: opts.mcqs,
            seed: opts.seed,
            runs: ws.runs,
            ...(shotsFor ? { shotsFor } : {}),
          });
          writeFileAtomic(resolve(opts.output), toJsonl(scored));
          const mode = scored.find((r) => r.consistencyDetail)?.consistencyDetail?.mode ?? opts.mode ?? '-';
          process.stdout.write(
            `Cons(q, r) for ${diagnostics.pairs} correct/wrong responses, ${diagnostics.mcqs} MCQs (${mode}; distractors: ${distractor ? `LLM ${distractor.model.cacheIdentity}` : 'answer pool only'}) -> ${opts.output}  [run ${run.id}]\n`,
          );
          process.stdout.write(
            `diagnostics: ${Object.entries(diagnostics)
              .map(([k, v]) => `${k} ${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(1) : v}`)
              .join(', ')}\n`,
          );
          const { countMcqAnswers, invalidMcqWarning } = await import('../metrics/mcq-answers.js');
          const counted = countMcqAnswers(scored);
          const warning = counted && invalidMcqWarning(counted.total);
          if (warning) process.stderr.write(`WARNING: ${escapeControls(warning.message)}\n`);
          if (opts.compareModes > 0) {
            const agreement = await compareAnswerModes({
              run,
              executor,
              records,
              sample: opts.compareModes,
              seed: opts.seed,
              ...(shotsFor ? { shotsFor } : {}),
            });
            const line = agreement && modeAgreementLine('consistency', mode === 'logprobs' ? 'logprobs' : 'generate', agreement);
            process.stdout.write(
              agreement
                ? `${line || 'answer-mode check: no MCQ to re-ask (no correct or wrong response)'}\n`
                : 'this model supports one answer mode only: no comparison\n',
            );
          }
        });
      },
    );
}
