import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { askQuestions, PROMPT_SETTINGS, type PromptSetting } from '../asking/ask-questions.js';
import { DATASET_FILES } from '../data/build-datasets.js';
import { readJsonl, readQAItems, toJsonl, writeFileAtomic, type QAItem } from '../data/qa-item.js';
import { LlmkbError } from '../errors.js';
import { judgeRecords } from '../judging/judge-records.js';
import { ResponseJudge, responseRecordSchema } from '../judging/judge-response.js';
import { Bm25ShotSelector, EmbeddingShotSelector, type ShotSelector } from '../prompts/shot-selector.js';
import type { Workspace } from '../workspace.js';

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number >= 0');
  return n;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function requireFile(path: string, how: string): string {
  if (!existsSync(path)) throw new LlmkbError(`${path} not found`, { hint: how });
  return path;
}

/** Few-shot selector: embeddings from the configured embedder, else BM25. */
export async function shotSelector(ws: Workspace, rSeenFile: string, rUnseenFile: string, embedderSpec?: string): Promise<ShotSelector> {
  const rSeen = readQAItems(requireFile(rSeenFile, 'Build the repositories with `llmkb data repositories`, or pass --r-seen.'));
  const rUnseen = readQAItems(requireFile(rUnseenFile, 'Build the repositories with `llmkb data repositories`, or pass --r-unseen.'));
  const entry = ws.entryFor('embedder', embedderSpec);
  if (entry === undefined) return new Bm25ShotSelector(rSeen, rUnseen);
  return new EmbeddingShotSelector(await ws.executor(entry), rSeen, rUnseen);
}

export function registerEvalCommands(program: Command, workspace: (command: Command) => Workspace): void {
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
    .option('--seed <n>', 'seed for shot order', integer, 42)
    .option('--max-tokens <n>', 'maximum new tokens', integer, 100)
    .option('--reduce-shots', 'drop shots until a prompt fits the context window (recorded per item) instead of failing')
    .option('-o, --output <file>', 'responses JSONL', 'responses.jsonl')
    .action(async (opts: { model?: string; setting: PromptSetting; data: string; input?: string[]; rSeen?: string; rUnseen?: string; embedder?: string; seed: number; maxTokens: number; reduceShots?: boolean; output: string }, command: Command) => {
      const ws = workspace(command);
      try {
        const entry = ws.entryFor('model', opts.model);
        if (entry === undefined) throw new LlmkbError('no model to ask', { hint: 'Pass --model SPEC or set "model" in llmkb.config.json.' });
        const files = opts.input ?? [join(opts.data, DATASET_FILES.seenqa), join(opts.data, DATASET_FILES.unseenqa)];
        const items: QAItem[] = files.flatMap((f) => readQAItems(requireFile(f, 'Build the data sets with `llmkb data seenqa` / `llmkb data unseenqa`, or pass --input.')));
        const ids = new Set<string>();
        for (const item of items) {
          if (ids.has(item.id)) throw new LlmkbError(`duplicate question id "${item.id}" across ${files.join(', ')}`, { hint: 'Question ids must be unique across all input files.' });
          ids.add(item.id);
        }
        const selector = opts.setting === 'zero-shot' ? undefined : await shotSelector(ws, opts.rSeen ?? join(opts.data, DATASET_FILES.rSeen), opts.rUnseen ?? join(opts.data, DATASET_FILES.rUnseen), opts.embedder);
        const executor = await ws.executor(entry);
        const { run, records } = await askQuestions({ items, executor, setting: opts.setting, seed: opts.seed, maxTokens: opts.maxTokens, reduceShots: opts.reduceShots ?? false, runs: ws.runs, label: typeof entry === 'string' ? entry : entry.spec, ...(selector ? { selector } : {}) });
        writeFileAtomic(resolve(opts.output), toJsonl(records));
        const dropped = records.filter((r) => r.shotsDropped).length;
        process.stdout.write(`asked ${records.length} questions (${opts.setting}${selector ? `, shots by ${selector.id}` : ''}) -> ${opts.output}  [run ${run.id}]\n`);
        if (dropped) process.stdout.write(`${dropped} prompts had shots dropped to fit the context window (field "shotsDropped")\n`);
      } finally {
        await ws.close();
      }
    });

  program
    .command('judge')
    .description('label responses correct / wrong / uninformative (works on any JSONL of questions + "response")')
    .requiredOption('-i, --input <file>', 'JSONL records: the item fields plus "response"')
    .option('-o, --output <file>', 'labelled JSONL', 'labeled.jsonl')
    .option('--judge <spec>', 'judge LLM (default: "judge" in the config)')
    .option('--no-judge', 'no judge LLM: the lexical rule decides, and labels are marked approximate')
    .action(async (opts: { input: string; output: string; judge?: string | false }, command: Command) => {
      const ws = workspace(command);
      try {
        const records = readJsonl(requireFile(opts.input, 'Produce responses with `llmkb ask`, or bring your own JSONL.'), responseRecordSchema, 'response record');
        const entry = opts.judge === false ? undefined : ws.entryFor('judge', opts.judge);
        const executor = entry === undefined ? undefined : await ws.executor(entry);
        const judge = new ResponseJudge(executor ? { judge: executor } : {});
        const { records: judged, summary } = await judgeRecords({ records, judge, judgeIdentity: executor ? executor.model.cacheIdentity : 'lexical-v1', runs: ws.runs });
        writeFileAtomic(resolve(opts.output), toJsonl(judged));
        process.stdout.write(`judged ${summary.records} responses -> ${opts.output}\n`);
        process.stdout.write(`labels: ${Object.entries(summary.labels).map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
        process.stdout.write(`decided by: ${Object.entries(summary.judgedBy).map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
        if (summary.stats.unparseableReplies) process.stdout.write(`judge replies that did not start with yes/no: ${summary.stats.unparseableReplies} (retried once; ${summary.stats.lexicalFallbacks} fell back to the lexical rule)\n`);
        if (summary.approximate) process.stdout.write('APPROXIMATE: no judge LLM was used for some seen responses; their correct/wrong labels come from the lexical rule (lexical-v1).\n');
      } finally {
        await ws.close();
      }
    });
}
