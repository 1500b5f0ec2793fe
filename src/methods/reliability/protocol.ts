/**
 * How close a run is to the paper's protocol. Every choice that moves the published figures is
 * named here with its status: `paper` (what Zheng, Lapata & Pan did), `approximation` (a cheaper
 * or offline stand-in whose effect on the numbers is measured or at least stated), or
 * `nondeterministic` (same inputs and seed may not give the same records). The block goes into
 * every summary; the report shows the departures at the top and `llmkb compare` warns when it
 * puts runs with different protocols side by side.
 *
 * Only choices that are the same on every re-run of the same command are recorded here, so a
 * summary stays byte-identical across runs; when and how long a run ran, and the tokens it paid
 * for, go to the run's execution record (`<label>.<setting>.run.json`).
 */
import { departuresOf, differencesOf } from '../protocol-differences.js';
import { ANSWER_MAX_TOKENS, GENERATE_STOP_ID } from './defaults.js';
import type { AnswerMode } from './consistency/mcq.js';

export type ProtocolStatus = 'paper' | 'approximation' | 'nondeterministic';

export interface ProtocolEntry {
  /** What the run did, e.g. `llm:openai:gpt-4o`, `lexical-v3`, `bm25-v1`, `generate`. */
  choice: string;
  status: ProtocolStatus;
  /** Why it matters or how much: e.g. the lexical judge's measured agreement with humans. */
  note?: string;
}

/** The choices, in the order the report lists them. */
export const PROTOCOL_CHOICES = [
  'judge',
  'timeFilter',
  'distractors',
  'shotSelector',
  'mcqAnswerMode',
  'questions',
  'mcqsPerResponse',
  'maxTokens',
  'batching',
] as const;
export type ProtocolChoice = (typeof PROTOCOL_CHOICES)[number];

export const PROTOCOL_TITLES: Record<ProtocolChoice, string> = {
  judge: 'judge (correct vs wrong)',
  timeFilter: 'time-sensitive question filter',
  distractors: 'MCQ distractors',
  shotSelector: 'few-shot selection',
  mcqAnswerMode: 'MCQ answer mode',
  questions: 'question set',
  mcqsPerResponse: 'MCQs per response',
  maxTokens: 'answer length',
  batching: 'batching of model calls',
};

export interface Protocol {
  schema: 'llmkb-protocol-v1';
  entries: Record<ProtocolChoice, ProtocolEntry>;
  /** Data set files the run read, with their SHA-256. */
  datasets: Record<string, string>;
  seed: number;
  /** Where the model under test ran: `cpu`, `cuda`, `vulkan`, `metal`, or `server`. */
  computeBackend: string;
}

/** What the time filter of the SeenQA build was, as its dataset card records it. */
export interface TimeFilterProvenance {
  /** `llm` or the keyword rule's id. */
  method: string;
  model?: string;
  note?: string;
}

export interface ProtocolInputs {
  setting: string;
  /** Judge LLM identity; undefined: the lexical fallback decided. */
  judge?: string;
  /** The lexical fallback's id and its measured agreement with human labels. */
  lexicalJudge: { id: string; note: string };
  /** Some judge replies were unparseable and fell back to the lexical rule. */
  lexicalFallbacks?: number;
  timeFilter?: TimeFilterProvenance;
  /** Distractor LLM identity; undefined: answer pool only. */
  distractor?: string;
  /** MCQs with fewer than the paper's 5 options (fewer than 3 distractors for their response), of all the run's MCQs. */
  fewerOptionMcqs?: { fewer: number; of: number };
  /** `embedding:<id>` or `bm25-v1`; ignored for zero-shot. */
  shotSelector: string;
  mode: AnswerMode;
  quick?: { seen: number; unseen: number };
  /** `--limit N`: a seeded sample of `n` of the `of` questions (after --quick's subset, if any). */
  limit?: { n: number; of: number };
  questions: { seen: number; unseen: number };
  /** The questions asked per SeenQA source and per UnseenQA template, compared with the paper's. */
  questionCounts?: QuestionCounts;
  /** The user's own QA file (`--input`), when the questions come from one. */
  input?: string;
  mcqs: number;
  maxTokens: number;
  /** Parallel sequences of an in-process model (1: sequential). */
  sequences?: number;
  computeBackend: string;
  datasets: Record<string, string>;
  seed: number;
}

const PAPER_MCQS = 20;

/** The paper's SeenQA (1,000 questions from each of its three sources) and UnseenQA (150 from each of its 20 templates). */
export const PAPER_QUESTIONS = { sources: ['nq', 'triviaqa', 'popqa'], perSource: 1000, templates: 20, perTemplate: 150 } as const;

/** Questions per source of the seen items and per template (source) of the unseen items, by the items' own set. */
export interface QuestionCounts {
  seen: Record<string, number>;
  unseen: Record<string, number>;
}

export function questionCounts(items: ReadonlyArray<{ dataset?: unknown; source?: unknown }>): QuestionCounts {
  const counts: QuestionCounts = { seen: {}, unseen: {} };
  for (const i of items) {
    const set = i.dataset === 'seen' ? counts.seen : i.dataset === 'unseen' ? counts.unseen : undefined;
    if (set) set[String(i.source)] = (set[String(i.source)] ?? 0) + 1;
  }
  return counts;
}

/** `n per x` when every count is n, else each count: `nq 20, popqa 19`. */
function countsText(counts: Record<string, number>, per: string): string {
  const values = new Set(Object.values(counts));
  return values.size === 1
    ? `${[...values][0]} per ${per}`
    : Object.entries(counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
}

/** Where a question set differs from the paper's (sources, templates, questions per source and per template); empty when it is the paper's. */
export function questionSetDepartures(c: QuestionCounts): string[] {
  const out: string[] = [];
  const sources = Object.keys(c.seen);
  const paperSources: readonly string[] = PAPER_QUESTIONS.sources;
  const foreign = sources.filter((s) => !paperSources.includes(s));
  const missing = paperSources.filter((s) => !sources.includes(s));
  if (foreign.length) out.push(`seen sources not in the paper's SeenQA: ${foreign.join(', ')}`);
  if (missing.length) out.push(`no ${missing.join(', ')} questions`);
  if (sources.some((s) => c.seen[s] !== PAPER_QUESTIONS.perSource)) out.push(`${countsText(c.seen, 'source')} (paper ${PAPER_QUESTIONS.perSource} per source)`);
  const templates = Object.keys(c.unseen);
  if (templates.length !== PAPER_QUESTIONS.templates) out.push(`${templates.length} unseen templates (paper ${PAPER_QUESTIONS.templates})`);
  if (templates.some((t) => c.unseen[t] !== PAPER_QUESTIONS.perTemplate))
    out.push(`${countsText(c.unseen, 'template')} (paper ${PAPER_QUESTIONS.perTemplate} per template)`);
  return out;
}

/** The question set entry of a full run (no --quick, no --limit): the paper's only when its counts are the paper's and it is no file of the user's. */
function questionSetEntry(p: ProtocolInputs): ProtocolEntry {
  const choice = `${p.questions.seen} seen + ${p.questions.unseen} unseen`;
  const differs = p.questionCounts ? questionSetDepartures(p.questionCounts) : [];
  if (p.input !== undefined) {
    const c = p.questionCounts;
    const spread = c ? ` (seen: ${Object.keys(c.seen).length} source(s); unseen: ${Object.keys(c.unseen).length} source(s) or template(s))` : '';
    return {
      choice: `your own: ${choice} from ${p.input}`,
      status: 'approximation',
      note: `not the paper's SeenQA (1000 per source) and UnseenQA (150 per template)${spread}`,
    };
  }
  if (differs.length) return { choice: `reduced: ${choice}`, status: 'approximation', note: `not the paper's question set: ${differs.join('; ')}` };
  return { choice, status: 'paper' };
}

/** What a distractor from the answer pool can be (src/methods/reliability/consistency/distractors.ts). */
const POOL_DISTRACTOR =
  "another question's accepted answer or another response of the model, same answer type first; never the response itself nor any of the item's own accepted answers (compared after SQuAD normalisation)";

export function buildProtocol(p: ProtocolInputs): Protocol {
  const paper = (choice: string, note?: string): ProtocolEntry => ({ choice, status: 'paper', ...(note ? { note } : {}) });
  const approx = (choice: string, note: string): ProtocolEntry => ({ choice, status: 'approximation', note });
  const judge = p.judge
    ? paper(
        `llm:${p.judge}`,
        p.lexicalFallbacks ? `${p.lexicalFallbacks} unparseable judge replies fell back to ${p.lexicalJudge.id}` : "the paper's Table 7 prompt",
      )
    : approx(p.lexicalJudge.id, p.lexicalJudge.note);
  const timeFilter =
    p.timeFilter === undefined
      ? approx('unknown', 'the data set folder has no machine-readable card; rebuild it with `llmkb data seenqa`')
      : p.timeFilter.method === 'llm'
        ? paper(`llm:${p.timeFilter.model ?? 'unknown'}`, "the paper's Table 5 prompt")
        : approx(p.timeFilter.method, p.timeFilter.note ?? 'keyword rule instead of an LLM');
  const fewer =
    p.fewerOptionMcqs && p.fewerOptionMcqs.fewer > 0
      ? `; ${p.fewerOptionMcqs.fewer} of ${p.fewerOptionMcqs.of} MCQs have fewer than the paper's 5 options (fewer than 3 distractors found for the response: a small answer pool), so guessing picks the response more often there`
      : '';
  const distractors = p.distractor
    ? fewer
      ? approx(`llm:${p.distractor}`, `the paper's Table 8 prompt, topped up from the answer pool (${POOL_DISTRACTOR})${fewer}`)
      : paper(
          `llm:${p.distractor}`,
          `the paper's Table 8 prompt; a reply with fewer than 3 usable distractors is topped up from the answer pool (${POOL_DISTRACTOR})`,
        )
    : approx('answer-pool', `no distractor LLM: ${POOL_DISTRACTOR}${fewer}`);
  const shotSelector =
    p.setting === 'zero-shot'
      ? paper('none (zero-shot)')
      : p.shotSelector.startsWith('embedding:')
        ? paper(p.shotSelector, 'nearest by cosine similarity of embeddings')
        : approx(p.shotSelector, 'nearest by BM25 instead of embeddings');
  const mcqAnswerMode =
    p.mode === 'generate'
      ? paper(
          'generate',
          `greedy generation, the letter parsed; stopped at the end of the answer line (${GENERATE_STOP_ID}: a reply that begins with a line break runs on to the next question), where the choice is read`,
        )
      : approx('logprobs', 'the most probable option letter in one forward pass instead of generating and parsing');
  const questions = p.limit
    ? approx(
        `limit: ${p.questions.seen} seen + ${p.questions.unseen} unseen`,
        `--limit ${p.limit.n}: a seeded sample of ${p.limit.n} of ${p.limit.of} questions${p.quick ? ' (of the --quick subset)' : ''}, for a quick look: wide intervals, not comparable with a full run`,
      )
    : p.quick
      ? approx(
          `quick: ${p.questions.seen} seen + ${p.questions.unseen} unseen`,
          `a seeded subset of ${p.quick.seen} + ${p.quick.unseen} questions: wide intervals`,
        )
      : questionSetEntry(p);
  const mcqsPerResponse = p.mcqs === PAPER_MCQS ? paper(String(p.mcqs)) : approx(String(p.mcqs), `the paper asks ${PAPER_MCQS} MCQs per response`);
  const maxTokens =
    p.maxTokens === ANSWER_MAX_TOKENS
      ? paper(`${p.maxTokens} new tokens`)
      : approx(`${p.maxTokens} new tokens`, `the paper generates at most ${ANSWER_MAX_TOKENS} new tokens`);
  const batching =
    (p.sequences ?? 1) > 1
      ? {
          choice: `${p.sequences} parallel sequences`,
          status: 'nondeterministic' as const,
          note: 'batched evaluation changes the numerics: re-runs may differ',
        }
      : paper(
          p.computeBackend === 'server' ? 'as the server batches' : 'one sequence',
          p.computeBackend === 'server' ? 'a server may batch requests; its determinism is its own' : 'same inputs and seed give the same records',
        );
  return {
    schema: 'llmkb-protocol-v1',
    entries: { judge, timeFilter, distractors, shotSelector, mcqAnswerMode, questions, mcqsPerResponse, maxTokens, batching },
    datasets: p.datasets,
    seed: p.seed,
    computeBackend: p.computeBackend,
  };
}

/** The entries where a run departs from the paper's protocol. */
export function departures(protocol: Protocol): Array<{ choice: ProtocolChoice; entry: ProtocolEntry }> {
  return departuresOf(protocol, PROTOCOL_TITLES) as Array<{ choice: ProtocolChoice; entry: ProtocolEntry }>;
}

/** Choices one study shares across all its runs (the others differ per model or setting by design): `llmkb merge` refuses shards that differ in one. */
export const PROTOCOL_SHARED: readonly ProtocolChoice[] = ['judge', 'timeFilter', 'distractors', 'mcqAnswerMode', 'questions', 'mcqsPerResponse', 'maxTokens'];

/** Few-shot selection differs between zero-shot and few-shot runs by design: compared within a setting only. */
export const PROTOCOL_PER_SETTING: readonly ProtocolChoice[] = ['shotSelector'];

/**
 * Choices that differ between runs put side by side (the question set and seed included): such
 * runs measure different things, and a table that mixes them says so.
 */
export function protocolDifferences(runs: ReadonlyArray<{ name: string; protocol?: Protocol | undefined }>): string[] {
  return differencesOf(runs, PROTOCOL_TITLES, PROTOCOL_PER_SETTING);
}
