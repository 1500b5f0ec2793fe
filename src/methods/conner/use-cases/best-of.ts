/**
 * Use case 2 (paper section 5, "Knowledge Selection"): given r knowledge texts per query
 * H = {k~_1..k~_r}, keep k = argmax_{k~ in H} Q_know(q, k~) (Eq. 9), then answer with it.
 *
 * As the paper does it (`bestOfSamples`): the r texts are drawn from one generator by top-p
 * sampling (p = 0.9, r = 5; ../generation/sample-knowledge.ts). As an alternative (`bestOf`), the
 * r candidates are r knowledge files (`conner generate` with other prompts, generators or
 * settings), recorded as a departure.
 *
 * Q_know needs only the four intrinsic metrics, so the candidates are scored on those alone
 * (no helpfulness or validity per candidate, which would need answers for every draw); the chosen
 * knowledge then gets its downstream answers (Table 13, greedy) like `conner generate` gives them,
 * so `conner score` measures helpfulness and validity of the selection (the paper's Table 8).
 */
import { InputFileError } from '../../../errors.js';
import { canonicalJson } from '../../../store/call-key.js';
import { checksumOfLines } from '../../../io/checksum.js';
import type { ModelBase } from '../../../providers/model-kinds.js';
import { runStage } from '../../../store/run-stage.js';
import { CONNER_METHOD } from '../metric-defs.js';
import { openMethodRun } from '../../open-run.js';
import type { ConnerProtocolNote } from '../conner-protocol.js';
import { answersFor, modelName, settingLabel, type GeneratedKnowledge, type GenerateOptions } from '../generation/generate-knowledge.js';
import { sampleKnowledge, type SampleOptions, type SampledKnowledge } from '../generation/sample-knowledge.js';
import { scoreKnowledge, type ScoreOptions, type ScoredKnowledge } from '../scoring/score-knowledge.js';
import { intrinsicOnly, knowledgeQuality, type Gamma } from './knowledge-quality.js';

export interface BestOfChoice {
  /** The chosen knowledge record, as `conner score` takes it; generator and setting name the selection. */
  chosen: GeneratedKnowledge;
  /** Index (0-based) of the chosen candidate: the candidate file, or the draw. */
  candidate: number;
  /** Q_know of each candidate, in order (null: no candidate for this query in that file). */
  qualities: Array<number | null>;
}

/** A protocol note of the use case; `nondeterministic`: the same seed may not give the same draws. */
export interface BestOfProtocolNote {
  id: string;
  kind: ConnerProtocolNote['kind'] | 'nondeterministic';
  text: string;
}

/** How the candidates are scored (as `conner score`, on the four intrinsic metrics) and gamma of Eq. 9. */
export type CandidateScoring = Omit<ScoreOptions, 'items' | 'label'> & { gamma: Gamma };

/**
 * Q_know of every candidate set (one scoring run each) and, per query id, the argmax. The first
 * candidate wins ties: the order of the candidates decides, never chance.
 */
async function chooseByQuality(
  sets: ReadonlyArray<readonly GeneratedKnowledge[]>,
  options: CandidateScoring,
  label: (c: number) => string,
): Promise<Map<string, { candidate: number; qualities: Array<number | null> }>> {
  const scored: Array<Map<string, ScoredKnowledge>> = [];
  for (let c = 0; c < sets.length; c++) {
    const rs = await scoreKnowledge({ ...options, items: sets[c]!.map(intrinsicOnly), label: label(c) });
    scored.push(new Map(rs.map((r) => [r.id, r])));
  }
  const ids = [...new Set(sets.flatMap((set) => set.map((k) => k.id)))];
  return new Map(
    ids.map((id) => {
      const qualities = scored.map((m) => {
        const r = m.get(id);
        return r === undefined ? null : knowledgeQuality(r, options.gamma).q;
      });
      return [id, { candidate: argmaxFirst(qualities), qualities }];
    }),
  );
}

/** Index of the largest non-null value; the first of equal ones. -1 when all are null. */
export function argmaxFirst(values: ReadonlyArray<number | null>): number {
  let best = -1;
  values.forEach((q, c) => {
    if (q !== null && (best === -1 || q > values[best]!)) best = c;
  });
  return best;
}

/**
 * Files mode: r candidate files for the same queries (a departure: the paper samples the r texts
 * from one model). Every file must hold the same query ids, or "best of r" would be best of fewer
 * for some queries: `checkSameQueries` says which file lacks which.
 */
export async function bestOf(candidates: ReadonlyArray<readonly GeneratedKnowledge[]>, options: CandidateScoring): Promise<BestOfChoice[]> {
  const chosen = await chooseByQuality(candidates, options, (c) => `conner best-of candidate ${c + 1}`);
  const byId = candidates.map((file) => new Map(file.map((k) => [k.id, k])));
  // The chosen knowledge is one system: "best of r" over the candidates' generators and settings.
  const unique = (xs: string[]): string => [...new Set(xs)].join(' + ');
  const label = {
    generator: unique(candidates.flatMap((f) => f.map((k) => k.generator))),
    setting: `best-of ${candidates.length} (${unique(candidates.flatMap((f) => f.map((k) => settingLabel(k))))})`,
  };
  return [...chosen].map(([id, { candidate, qualities }]) => {
    const k = byId[candidate]!.get(id)!;
    return { chosen: { ...k, generator: label.generator, setting: label.setting }, candidate, qualities };
  });
}

/** Files mode's inputs must hold the same query ids: the first file that lacks one, or has one more, is named. */
export function checkSameQueries(files: ReadonlyArray<{ file: string; items: readonly GeneratedKnowledge[] }>): void {
  const first = files[0];
  if (!first) return;
  const ids = new Set(first.items.map((k) => k.id));
  for (const { file, items } of files.slice(1)) {
    const own = new Set(items.map((k) => k.id));
    const missing = [...ids].filter((id) => !own.has(id));
    const extra = [...own].filter((id) => !ids.has(id));
    if (missing.length === 0 && extra.length === 0) continue;
    const list = (xs: string[]): string => `${xs.slice(0, 5).join(', ')}${xs.length > 5 ? `, … (${xs.length})` : ''}`;
    throw new InputFileError(
      file,
      undefined,
      undefined,
      `holds other queries than ${first.file}: ${[...(missing.length ? [`missing ${list(missing)}`] : []), ...(extra.length ? [`not in ${first.file}: ${list(extra)}`] : [])].join('; ')}`,
      'Every --input file must hold knowledge for the same query ids, so each query is chosen among all of them: generate each from the same query file and --limit (with the same --seed).',
    );
  }
}

export interface BestOfSamplesOptions extends Omit<SampleOptions, 'runs' | 'progress'>, Pick<GenerateOptions, 'answerer' | 'answerShots' | 'answerMaxTokens'> {
  /** The scoring of the candidates (its `seed` is unused: the candidates get no helpfulness). */
  scoring: CandidateScoring;
}

export interface SampledChoice extends BestOfChoice {
  /** All r draws for the query, in draw order, and the seed of each. */
  samples: string[];
  seeds: number[];
}

/** The setting label of a selection from top-p draws, e.g. `best-of 5 (top-p 0.9, T 1; zero-shot)`. */
export function sampledSettingLabel(
  options: Pick<SampleOptions, 'samples' | 'topP' | 'temperature'>,
  base: Pick<GeneratedKnowledge, 'setting' | 'prompt'>,
): string {
  return `best-of ${options.samples} (top-p ${options.topP}, T ${options.temperature}; ${settingLabel(base)})`;
}

/** The paper's way: r top-p draws per query from one generator, the argmax of Q_know kept and answered with. */
export async function bestOfSamples(options: BestOfSamplesOptions): Promise<SampledChoice[]> {
  const { scoring, generator, answerer } = options;
  const progress = scoring.progress;
  const sampled = await sampleKnowledge({ ...options, runs: scoring.runs, ...(progress === undefined ? {} : { progress }) });
  const asCandidate = (s: SampledKnowledge, i: number): GeneratedKnowledge => {
    const { samples: _samples, seeds: _seeds, ...rest } = s;
    return { ...rest, knowledge: s.samples[i]!, answerDemos: [] };
  };
  const sets = Array.from({ length: options.samples }, (_, i) => sampled.map((s) => asCandidate(s, i)));
  const chosen = await chooseByQuality(sets, scoring, (i) => `conner best-of draw ${i + 1}`);
  const picked = sampled.map((s) => ({ s, ...chosen.get(s.id)! }));
  // The downstream answers of the chosen knowledge, a resumable stage of its own (a different
  // gamma or scorer chooses other texts: another run).
  const items = picked.map(({ s, candidate }) => asCandidate(s, candidate));
  const run = openMethodRun(
    scoring.runs,
    CONNER_METHOD,
    {
      model: answerer.model.cacheIdentity,
      dataset: checksumOfLines(items, (k) => canonicalJson(k)),
      setting: 'conner-best-of:answers',
      seed: options.seed,
      params: {
        answerShots: options.answerShots,
        answerMaxTokens: options.answerMaxTokens,
        demoPool: checksumOfLines(options.demoPool, (d) => canonicalJson(d)),
      },
      label: `conner best-of answers ${modelName(answerer)} (knowledge of ${modelName(generator)})`,
    },
    'conner best-of',
  );
  const answered = await runStage<GeneratedKnowledge, GeneratedKnowledge>({
    run,
    stage: 'answer',
    items,
    idOf: (k) => k.id,
    concurrency: options.concurrency ?? answerer.concurrency,
    ...(progress === undefined ? {} : { progress }),
    work: async (k) => {
      const a = await answersFor(answerer, k, k.knowledge, options);
      const { cached, ...answers } = a;
      return { record: { ...k, ...answers }, cached };
    },
  });
  return picked.map(({ s, candidate, qualities }) => ({
    chosen: { ...answered.get(s.id)!, setting: sampledSettingLabel(options, s) },
    candidate,
    qualities,
    samples: s.samples,
    seeds: s.seeds,
  }));
}

/** Whether the same seed gives the same draws on this generator, as far as llmkb can know. */
export function samplingDeterminism(model: Pick<ModelBase, 'provider' | 'runtime' | 'samplingDeterminism'>): { deterministic: boolean; why: string } {
  if (model.samplingDeterminism) return model.samplingDeterminism;
  const runtime = model.runtime;
  if (runtime === undefined)
    return {
      deterministic: false,
      why: 'the draws are seeded through the request\'s "seed" field, which a server may ignore (OpenAI calls it best effort); re-runs may draw other texts (the call cache keeps this run\'s)',
    };
  if (runtime.sequences > 1)
    return { deterministic: false, why: `${runtime.sequences} parallel sequences: batched evaluation changes the numerics, so a seed may draw another text` };
  return { deterministic: true, why: 'in-process, one sequence: the seed fixes each draw' };
}

export interface BestOfProtocolFacts {
  mode: 'samples' | 'files';
  gamma: Gamma;
  /** Sampling mode. */
  samples?: number;
  topP?: number;
  temperature?: number;
  determinism?: { deterministic: boolean; why: string };
  /** Files mode: the number of candidate files. */
  files?: number;
  /** Sampling mode: who drew the knowledge and who answered it. */
  generator?: string;
  answerer?: string;
}

/** What a best-of run did where the paper leaves a choice open or where llmkb departs from it. */
export function bestOfProtocol(facts: BestOfProtocolFacts): BestOfProtocolNote[] {
  const notes: BestOfProtocolNote[] = [];
  if (facts.mode === 'samples') {
    notes.push({
      id: 'best-of-sampling',
      kind: 'decision',
      text: `r = ${facts.samples} draws per query by nucleus (top-p) sampling with p = ${facts.topP} (the paper: p = 0.9, r = 5), no top-k cut; temperature ${facts.temperature} (the paper does not give it; 1 is the OpenAI API's default, the paper's generator being ChatGPT)`,
    });
    notes.push({
      id: 'best-of-seeds',
      kind: facts.determinism?.deterministic === false ? 'nondeterministic' : 'decision',
      text: `each draw seeded with the first 32 bits of sha256(seed, query id, draw index); ${facts.determinism?.why ?? ''}`.trim(),
    });
  } else {
    notes.push({
      id: 'best-of-candidates',
      kind: 'departure',
      text: `the ${facts.files} candidates per query come from ${facts.files} knowledge files (other prompts, generators or settings), not from top-p sampling of one model (the paper: p = 0.9, r = 5)`,
    });
  }
  notes.push({
    id: 'best-of-gamma',
    kind: 'decision',
    text: `gamma of Eq. 9 = (${facts.gamma.join(', ')}) for (fact, rel, coh_para, info); the paper does not give gamma; a metric with no scorer adds 0`,
  });
  notes.push({
    id: 'best-of-ties',
    kind: 'decision',
    text: 'candidates are scored on the four intrinsic metrics only (Q needs no others); equal Q: the first candidate wins',
  });
  if (facts.mode === 'samples') {
    notes.push({
      id: 'best-of-answers',
      kind: facts.answerer === facts.generator ? 'departure' : 'decision',
      text: `the downstream answers (Table 13) are generated greedily for the chosen knowledge only, as \`conner generate\` does, by ${facts.answerer === facts.generator ? `the generator itself (${facts.answerer}), not a fixed answerer (the paper: LLaMA-65B for every generator, Appendix G)` : `the answerer ${facts.answerer}`}`,
    });
  }
  return notes;
}

/** Mean Q_know of the chosen knowledge and of each candidate position: what the selection gained. */
export function bestOfGain(choices: readonly BestOfChoice[]): { chosen: number | null; perCandidate: Array<number | null> } {
  const mean = (xs: number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
  const r = Math.max(0, ...choices.map((c) => c.qualities.length));
  return {
    chosen: mean(choices.filter((c) => c.candidate >= 0).map((c) => c.qualities[c.candidate]!)),
    perCandidate: Array.from({ length: r }, (_, i) => mean(choices.map((c) => c.qualities[i]).filter((q): q is number => q !== null && q !== undefined))),
  };
}
