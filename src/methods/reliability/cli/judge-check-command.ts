/**
 * `llmkb judge check`: how far a judge agrees with human correctness labels. The paper trusts its
 * judge LLM (Table 7) because it agreed with humans; this measures the judge a run actually uses
 * (a judge LLM through the cached executor, or the lexical rule) on EVOUNA or the user's own
 * labelled responses, so a report can say how approximate its labels are.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { LlmkbError } from '../../../errors.js';
// Types only at the top; the judging modules load inside the action (start-up time, see cli-defaults.ts).
import type { AgreementReport, AgreementStats } from '../judging/judge-agreement.js';
import type { CliHost } from '../../method-cli.js';
import { LEXICAL_JUDGE_ID } from '../defaults.js';
import { positiveInteger } from '../../cli-options.js';
import { LIMIT_SEED, limited } from './stage-commands.js';
import { requireFile } from '../../../io/require-path.js';

interface CheckOptions {
  evouna?: string;
  input?: string;
  judge?: string | false;
  concurrency: number;
  limit?: number;
  json?: boolean;
}

const pct = (x: number | null): string => (x === null || Number.isNaN(x) ? '-' : x.toFixed(3));

function line(name: string, s: AgreementStats): string {
  const c = s.confusion;
  const unin = s.humanCorrectUninformativeShare === null ? '-' : `${(100 * s.humanCorrectUninformativeShare).toFixed(2)}%`;
  return `${name.padEnd(14)} ${String(s.n).padStart(6)}  ${pct(s.agreement).padStart(9)}  ${pct(s.kappa).padStart(6)}  ${pct(s.precision).padStart(9)}  ${pct(s.recall).padStart(6)}  ${`${c.tp}/${c.fp}/${c.fn}/${c.tn}`.padStart(21)}  ${unin.padStart(8)}`;
}

export function formatAgreement(report: AgreementReport, judge: string, source: string): string {
  const o = report.overall;
  const out = [
    `judge ${judge} against human labels (${source}): ${o.n} responses`,
    `agreement ${pct(o.agreement)}, Cohen's kappa ${pct(o.kappa)}, precision of "correct" ${pct(o.precision)}, recall ${pct(o.recall)}`,
    '',
    'confusion matrix (rows: human, columns: judge)',
    `                 judge correct  judge not correct`,
    `human correct    ${String(o.confusion.tp).padStart(13)}  ${String(o.confusion.fn).padStart(17)}`,
    `human wrong      ${String(o.confusion.fp).padStart(13)}  ${String(o.confusion.tn).padStart(17)}`,
    `human-correct responses labelled uninformative: ${o.humanCorrectUninformative} (${o.humanCorrectUninformativeShare === null ? '-' : `${(100 * o.humanCorrectUninformativeShare).toFixed(2)}%`})`,
    '',
    `${'group'.padEnd(14)} ${'n'.padStart(6)}  ${'agreement'.padStart(9)}  ${'kappa'.padStart(6)}  ${'precision'.padStart(9)}  ${'recall'.padStart(6)}  ${'tp/fp/fn/tn'.padStart(21)}  ${'unin.'.padStart(8)}`,
    line('all', o),
  ];
  const groups = (title: string, g: Record<string, AgreementStats>): void => {
    const keys = Object.keys(g);
    if (keys.length < 2 && keys[0] === '-') return;
    out.push(`by ${title}`);
    for (const k of keys.sort()) out.push(line(`  ${k}`, g[k]!));
  };
  groups('data set', report.byDataset);
  groups('system', report.bySystem);
  if (Object.keys(report.byDataset).length > 1 && Object.keys(report.bySystem).length > 1) groups('data set and system', report.byDatasetSystem);
  out.push('(unin.: share of human-correct responses the judge labelled uninformative)');
  return `${out.join('\n')}\n`;
}

/** Registers `check` under the existing `judge` command, which keeps working as before. */
export function registerJudgeCheckCommand(program: Command, host: CliHost): void {
  const judgeCommand = program.commands.find((c) => c.name() === 'judge');
  if (!judgeCommand) throw new Error('register the judge command before judge check');
  // Commander checks an ancestor's required options before running a subcommand too: `judge -i`
  // is required for judging, not for `judge check` (judge's own action does not run then). Only
  // on the way to a subcommand, so `llmkb judge` behaves exactly as before.
  judgeCommand.hook('preSubcommand', (cmd) => {
    if (cmd.getOptionValue('input') === undefined) cmd.setOptionValueWithSource('input', '', 'default');
  });
  judgeCommand
    .command('check')
    .description(
      'measure a judge against human correctness labels (EVOUNA by default): agreement, Cohen\'s kappa, precision/recall of "correct", per system and data set',
    )
    .option('--evouna <dir>', 'EVOUNA folder with NQ.json and TQ.json (default: $LLMKB_DATA_DIR/evouna)')
    .option('-i, --input <file>', 'instead of EVOUNA: JSONL with question, answers, response, human_correct (optional id, system, dataset)')
    .option('--judge <spec>', 'judge LLM to measure (default: "judge" in the config)')
    .option('--no-judge', `measure the lexical rule (${LEXICAL_JUDGE_ID}) instead of a judge LLM`)
    .option('--concurrency <n>', 'responses judged at a time', positiveInteger, 16)
    .option(
      '--limit <n>',
      `only N responses, for a quick look: a seeded sample (seed ${LIMIT_SEED}, split between the data sets in proportion, kept in file order)`,
      positiveInteger,
    )
    .option('--json', 'print JSON')
    .action(async (own: CheckOptions, command: Command) => {
      // `judge` parses -i, --judge, --no-judge and --limit when they come before any option it does not know
      // (they are its options too); `check` parses them after one. Either way they count.
      const { measureJudge, readEvouna, readHumanLabelled } = await import('../judging/judge-agreement.js');
      const { ResponseJudge } = await import('../judging/judge-response.js');
      const { Progress } = await import('../../../progress/progress.js');
      const parent = command.parent?.opts<{ input?: string; judge?: string | false; limit?: number }>() ?? {};
      const limit = own.limit ?? parent.limit;
      const opts: CheckOptions = {
        ...own,
        input: own.input ?? (parent.input || undefined),
        judge: own.judge ?? parent.judge,
        ...(limit === undefined ? {} : { limit }),
      };
      if (opts.input !== undefined && opts.evouna !== undefined)
        throw new LlmkbError('--input and --evouna both given', { hint: 'Measure against one set of human labels at a time.' });
      let rows;
      let source: string;
      if (opts.input !== undefined) {
        rows = readHumanLabelled(requireFile(opts.input, 'Pass a JSONL file with question, answers, response, human_correct per line.'));
        source = opts.input;
      } else {
        const dir = opts.evouna ?? (process.env.LLMKB_DATA_DIR ? join(process.env.LLMKB_DATA_DIR, 'evouna') : undefined);
        if (dir === undefined)
          throw new LlmkbError('no EVOUNA folder given', {
            hint: 'Pass --evouna DIR (the folder with NQ.json and TQ.json), or set LLMKB_DATA_DIR to a folder with an evouna/ subfolder; or measure on your own labels with -i FILE.',
          });
        rows = readEvouna(dir);
        source = `EVOUNA, ${dir}`;
      }
      if (rows.length === 0) throw new LlmkbError(`no human-labelled responses in ${source}`);
      // The sample is said in the output's source, so a partial measurement never reads as a whole one.
      if (opts.limit !== undefined && opts.limit < rows.length) source = `${source}, a seeded sample of ${opts.limit} of ${rows.length}`;
      rows = await limited(rows, opts.limit, LIMIT_SEED, 'human-labelled responses');
      await host.withWorkspace(command, async (ws) => {
        const entry = opts.judge === false ? undefined : ws.entryFor('judge', opts.judge);
        const executor = entry === undefined ? undefined : await ws.executor(entry);
        const judge = new ResponseJudge(executor ? { judge: executor } : {});
        const name = executor ? `llm:${executor.model.cacheIdentity}` : LEXICAL_JUDGE_ID;
        const progress = new Progress('judge check', rows.length, opts.json ? { quiet: true } : {});
        const { report } = await measureJudge({ rows, judge, concurrency: opts.concurrency, onJudged: (_done, _total, cached) => progress.tick({ cached }) });
        progress.finish('');
        if (opts.json) {
          process.stdout.write(`${JSON.stringify({ judge: name, source, stats: judge.stats, ...report }, null, 2)}\n`);
          return;
        }
        process.stdout.write(formatAgreement(report, name, source));
        if (judge.stats.unparseableReplies)
          process.stdout.write(
            `judge replies that did not start with yes/no: ${judge.stats.unparseableReplies} (${judge.stats.lexicalFallbacks} fell back to the lexical rule)\n`,
          );
      });
    });
}
