/**
 * CONNER's inputs (`prepare`): the queries of one test file (NQ or WoW, or the user's JSONL), the
 * demonstration pool, the evidence source, and the scorers, each probed with one small call
 * before any item (./conner-setup.ts), so a scorer of the wrong kind fails at once.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { sha256 } from '../../../io/checksum.js';
import { LlmkbError } from '../../../errors.js';

import type { PrepareContext, PreparedInputs } from '../../method.js';
import { evidenceSource } from '../conner-setup.js';
import { probeScorers, scorersOf, scoringExecutors } from '../scoring/scoring-setup.js';
import type { Demonstration } from '../generation/conner-prompts.js';
import { readConnerJsonl, readConnerQueries, type ConnerQuery } from '../generation/conner-queries.js';
import { demonstrationsOf } from '../generation/generate-knowledge.js';
import type { EvidenceSource } from '../evidence/evidence-source.js';
import { limitItemsById } from '../../../sampling/limit-items.js';
import { QUICK_QUERIES } from '../defaults.js';
import { connerOptions, type ConnerOptions } from './options.js';
import { requireFile } from '../../../io/require-path.js';

/** What the stages and the summary need besides the queries. */
export interface ConnerContext {
  options: ConnerOptions;
  demoPool: readonly Demonstration[];
  fixedDemos?: readonly Demonstration[];
  evidence: EvidenceSource;
  /** The files read, with their SHA-256. */
  files: Record<string, string>;
  /** `--quick`: n of how many queries. */
  quick?: { n: number; of: number };
}

const DEMO_HINT = 'Make it with `llmkb conner select-demos`, or give a query file with gold knowledge and answers.';

export async function prepareConner(ctx: PrepareContext): Promise<PreparedInputs> {
  const options = connerOptions(ctx.options);
  const all = readConnerQueries(requireFile(options.input, "Give one of CONNER's test files or a JSONL query file (docs/conner.md)."), options.task, ctx.log);
  if (all.length === 0) throw new LlmkbError(`${options.input}: no queries`, { hint: 'The file holds no query lines (docs/conner.md shows the formats).' });
  // By file name: a summary says what it read, not where it lay on one machine.
  const files: Record<string, string> = { [basename(options.input)]: sha256(readFileSync(options.input)) };
  const queries: ConnerQuery[] = ctx.quick ? limitItemsById(all, QUICK_QUERIES, ctx.seed) : all;
  let fixedDemos: Demonstration[] | undefined;
  let demoPool: Demonstration[];
  if (options.demos !== undefined) {
    files[basename(options.demos)] = sha256(readFileSync(requireFile(options.demos, DEMO_HINT)));
    if (options.fixedDemos) {
      const { z } = await import('zod');
      const schema = z.object({ id: z.string().min(1), topic: z.string(), query: z.string().min(1), knowledge: z.string().min(1), answer: z.string() }).strip();
      fixedDemos = readConnerJsonl(options.demos, schema, 'demonstration', DEMO_HINT);
    }
    demoPool = fixedDemos ?? demonstrationsOf(readConnerQueries(options.demos, options.task, ctx.log));
  } else demoPool = demonstrationsOf(all);
  if (ctx.db === undefined) throw new LlmkbError('CONNER needs the store to read evidence from (an internal caller gave none)');
  const evidence = await evidenceSource(ctx.db, options.corpus, options.evidenceTop, options.choices);
  // The scorers the runs will use: checked and probed once, before any item of any run.
  const setup = scorersOf(scoringExecutors(ctx.roles), evidence);
  await probeScorers(setup);
  if (setup.answererUnscoring)
    ctx.log(
      `note: the answerer ${setup.answererUnscoring} cannot score prompts: helpfulness's answer losses are the scorer's (a departure: the paper's answerer scores them; recorded)`,
    );
  const context: ConnerContext = {
    options,
    demoPool,
    ...(fixedDemos ? { fixedDemos } : {}),
    evidence,
    files,
    ...(ctx.quick ? { quick: { n: queries.length, of: all.length } } : {}),
  };
  return {
    items: queries,
    datasets: files,
    context,
    note: `${queries.length} ${queries[0]?.task === 'dialogue' ? 'dialogue turns' : 'queries'}${ctx.quick ? ` (quick: a seeded sample of ${all.length})` : ''}`,
  };
}
