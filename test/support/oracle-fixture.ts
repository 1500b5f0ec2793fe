/**
 * Runs for the output oracle (test/output-oracle.test.ts), made by the real runner (`llmkb sweep`
 * and `llmkb eval`, the built CLI) against scripted `mock:` models on a small question set of its
 * own: SeenQA sources (nq, triviaqa, popqa), a user's seen source named like a template
 * (`TQ-mine`), a user's source with seen and unseen questions (`mine`), and UnseenQA templates
 * (T1, T3, T7); few-shot repositories of its own, so no source file is read.
 *
 * - a study of three models x three settings, judged by the lexical rules (approximate runs):
 *   `sage` (70B, fine-tuned) answers two thirds of the seen questions, `guesser` (1B, base)
 *   answers "Paris" to everything, `garbler` (13B, base) answers half and never answers an MCQ
 *   in the format (every consistency metric flagged);
 * - `cautious` (7B, fine-tuned) by `llmkb eval` with a scripted judge LLM (exact runs).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { llmkb } from './run-cli.js';

export const SETTINGS = ['zero-shot', 'four-shot', 'four-shot-2'] as const;
export const STUDY_MODELS = [
  { label: 'sage', params: 70, tuning: 'fine-tuned' },
  { label: 'guesser', params: 1, tuning: 'base' },
  { label: 'garbler', params: 13, tuning: 'base' },
] as const;
export const EVAL_MODEL = { label: 'cautious', params: 7, tuning: 'fine-tuned' } as const;

interface Item {
  id: string;
  dataset: 'seen' | 'unseen';
  source: string;
  question: string;
  answers: string[];
  answerType: string | null;
}

const TYPES = ['person', 'time', 'location', 'number', 'other'];

function items(): Item[] {
  const out: Item[] = [];
  const seenSources: Array<[string, number]> = [
    ['nq', 8],
    ['triviaqa', 8],
    ['popqa', 6],
    ['TQ-mine', 8],
    ['mine', 6],
  ];
  let k = 0;
  for (const [source, n] of seenSources) {
    for (let i = 0; i < n; i++, k++) {
      const answer = k === 3 ? 'Paris' : `Answer${k} Zed`;
      out.push({
        id: `s${k}`,
        dataset: 'seen',
        source,
        question: `Oracle question ${k}: which thing is number ${k} in the ${source} list?`,
        answers: [answer, `${answer} (alias)`],
        answerType: TYPES[k % TYPES.length]!,
      });
    }
  }
  const unseenSources: Array<[string, number]> = [
    ['T1', 6],
    ['T3', 6],
    ['T7', 5],
    ['mine', 5],
  ];
  for (const [source, n] of unseenSources) {
    for (let i = 0; i < n; i++, k++)
      out.push({
        id: `u${k}`,
        dataset: 'unseen',
        source,
        question: `Oracle question ${k}: what will event ${k} of ${source} bring in 2031?`,
        answers: [],
        answerType: TYPES[k % TYPES.length]!,
      });
  }
  return out;
}

const jsonl = (rows: readonly object[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** The mock rules of each model (first match wins): MCQs first, then per-question replies, then a default. */
function scripts(all: readonly Item[]): Record<string, object[]> {
  const seen = all.filter((i) => i.dataset === 'seen');
  const unseen = all.filter((i) => i.dataset === 'unseen');
  const answer = (i: Item) => ({ contains: i.question, reply: ` ${i.answers[0]}` });
  return {
    // Few-shot prompts hold the repositories' shots ("Shot question ..."), four-shot-2's unseen ones too ("shot event"): each model answers differently per setting.
    sage: [
      { contains: 'multi-choice', reply: ' B' },
      { contains: 'Shot question 5', reply: ' unsure' },
      ...seen.filter((_, n) => n % 3 !== 0).map(answer),
      ...unseen.filter((_, n) => n % 2 === 0).map((i) => ({ contains: i.question, reply: ' unsure' })),
      { default: true, reply: ' Lyon' },
    ],
    guesser: [
      { contains: 'multi-choice', reply: ' A' },
      { contains: 'shot event', reply: ' unsure' },
      { default: true, reply: ' Paris' },
    ],
    garbler: [
      { contains: 'multi-choice', reply: ' banana bread' },
      { contains: 'Shot answer 2', reply: ' Toulouse' },
      ...seen.filter((_, n) => n % 2 === 0).map(answer),
      { default: true, reply: ' I do not know' },
    ],
    cautious: [
      { contains: 'multi-choice', reply: ' C' },
      { contains: 'Shot question 1:', reply: ' Nice' },
      ...seen.filter((_, n) => n % 4 === 1).map(answer),
      ...unseen.filter((_, n) => n % 3 === 0).map((i) => ({ contains: i.question, reply: ' Marseille' })),
      { default: true, reply: ' unsure' },
    ],
    // The judge LLM (Table 7's prompt): yes to nothing but exact answers, which exact match decides before it.
    judge: [{ default: true, reply: 'no' }],
  };
}

/** Few-shot repositories (paper section 3.2): a handful of seen and unseen questions with their answers. */
function repositories(): { rSeen: Item[]; rUnseen: Item[] } {
  const rSeen = Array.from({ length: 8 }, (_, i) => ({
    id: `rs${i}`,
    dataset: 'seen' as const,
    source: 'nq',
    question: `Shot question ${i}: who made shot thing ${i}?`,
    answers: [`Shot answer ${i}`],
    answerType: 'person',
  }));
  const rUnseen = Array.from({ length: 8 }, (_, i) => ({
    id: `ru${i}`,
    dataset: 'unseen' as const,
    source: 'T1',
    question: `Shot question ${i}: what will shot event ${i} bring in 2031?`,
    answers: ['unsure'],
    answerType: 'other',
  }));
  return { rSeen, rUnseen };
}

export interface OracleFixture {
  root: string;
  study: string;
  /** The sweep's results folder (its tables, analysis.json, report.html) and each eval run's folder. */
  sweepOut: string;
  evalOut: string;
  /** Every run's summary file, study runs first. */
  summaries: string[];
  outputs: { sweep: string; eval: string };
}

/** Writes the question set, the scripts and the study under `root`, and runs the sweep and the eval. */
export async function buildOracleRuns(root: string): Promise<OracleFixture> {
  const all = items();
  const data = join(root, 'data');
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, 'seenqa.jsonl'), jsonl(all.filter((i) => i.dataset === 'seen')));
  writeFileSync(join(data, 'unseenqa.jsonl'), jsonl(all.filter((i) => i.dataset === 'unseen')));
  const { rSeen, rUnseen } = repositories();
  writeFileSync(join(data, 'r_seen.jsonl'), jsonl(rSeen));
  writeFileSync(join(data, 'r_unseen.jsonl'), jsonl(rUnseen));
  for (const [name, rules] of Object.entries(scripts(all))) writeFileSync(join(root, `${name}.jsonl`), jsonl(rules));
  const study = join(root, 'study.yaml');
  writeFileSync(
    study,
    [
      'name: oracle',
      'models:',
      ...STUDY_MODELS.map((m) => `  - { label: ${m.label}, spec: "mock:${m.label}.jsonl", params: ${m.params}, tuning: ${m.tuning} }`),
      'methods:',
      '  - id: reliability',
      `    settings: [${SETTINGS.join(', ')}]`,
      '    options: { mcqs: 3 }',
      'data: data',
      'out: sweep',
      '',
    ].join('\n'),
  );
  const sweep = await llmkb(['--store', join(root, 'store.sqlite'), 'sweep', study], { cwd: root });
  if (sweep.code !== 0) throw new Error(`sweep failed (${sweep.code}): ${sweep.stderr.slice(-2000)}`);
  const evalOut = join(root, 'eval');
  const ev = await llmkb(
    [
      '--store',
      join(root, 'store.sqlite'),
      'eval',
      '--model',
      'mock:cautious.jsonl',
      '--judge',
      'mock:judge.jsonl',
      '--name',
      EVAL_MODEL.label,
      '--settings',
      SETTINGS.join(','),
      '--data',
      data,
      '--mcqs',
      '3',
      '--params',
      String(EVAL_MODEL.params),
      '--fine-tuned',
      '--out',
      evalOut,
    ],
    { cwd: root },
  );
  if (ev.code !== 0) throw new Error(`eval failed (${ev.code}): ${ev.stderr.slice(-2000)}`);
  return { root, study, sweepOut: join(root, 'sweep'), evalOut, summaries: [], outputs: { sweep: sweep.stdout, eval: ev.stdout } };
}
