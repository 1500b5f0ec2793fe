/**
 * `conner score` over knowledge files: a seeded sample of the queries (`--limit`), each file
 * scored as one resumable run (../scoring/score-knowledge.ts), and one summary per generator and
 * setting with the protocol of what was done (./conner-protocol.ts); `scoreToFiles` also writes
 * the per-item scores and, per generator and setting, the summary and records files.
 */
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import { fileAccessError } from '../../errors.js';
import { writeFileAtomic } from '../../io/files.js';
import { toJsonl } from '../../io/jsonl.js';
import { runResultFiles, writeJsonFile } from '../../io/result-files.js';
import type { ProgressOptions } from '../../progress/progress.js';
import type { RunStore } from '../../store/run-store.js';
import type { MethodSummary } from '../method-summary.js';
import type { ScoringChoices } from './conner-choices.js';
import { scorerFacts, type ConnerRunFacts } from './conner-run-facts.js';
import type { ScoringSetup } from './scoring/scoring-setup.js';
import { settingLabel, type GeneratedKnowledge } from './generation/generate-knowledge.js';
import { scoreKnowledge } from './scoring/score-knowledge.js';
import type { ScoredKnowledge } from './scoring/scored-knowledge.js';
import type { HumanRating } from './summary/human-ratings.js';
import { connerRunSummaries } from './summary/conner-summary.js';

export interface KnowledgeFile {
  file: string;
  /** SHA-256 of the file as read: the summary's data set checksum. */
  sha256: string;
  items: GeneratedKnowledge[];
}

export interface ScoreFilesOptions {
  runs: RunStore;
  setup: ScoringSetup;
  choices: ScoringChoices;
  seed: number;
  resamples: number;
  concurrency?: number;
  progress?: ProgressOptions;
  ratings?: ReadonlyMap<string, HumanRating>;
  limit?: number;
}

/** Scores each file (one run each) and summarizes per generator and setting. */
export async function scoreFiles(
  files: readonly KnowledgeFile[],
  options: ScoreFilesOptions,
): Promise<{ records: ScoredKnowledge[]; summaries: MethodSummary[] }> {
  const { setup } = options;
  const records: ScoredKnowledge[] = [];
  // Which input files each generator and setting was read from: the checksums in its summary.
  const sources = new Map<string, Record<string, string>>();
  for (const { file, sha256, items } of files) {
    const scored = await scoreKnowledge({
      items,
      runs: options.runs,
      evidence: setup.evidence,
      choices: options.choices,
      seed: options.seed,
      concurrency: options.concurrency ?? setup.concurrency,
      label: `conner score ${[...new Set(items.map((k) => k.generator))].join(', ')} (${basename(file)})`,
      ...(setup.scorer ? { scorer: setup.scorer } : {}),
      ...(setup.answerScorer ? { answerScorer: setup.answerScorer } : {}),
      ...(setup.nli ? { nli: setup.nli } : {}),
      ...(setup.relevance ? { relevance: setup.relevance } : {}),
      ...(setup.coherence ? { coherence: setup.coherence } : {}),
      ...(options.progress ? { progress: options.progress } : {}),
    });
    for (const r of scored) {
      const key = `${r.generator}\u0000${r.setting}`;
      sources.set(key, { ...sources.get(key), [file]: sha256 });
    }
    records.push(...scored);
  }
  // The sample scored: this command's --limit, else the one the knowledge was generated for (`generate --limit`).
  const generatedFor = files.flatMap((f) => f.items).find((k) => k.limit !== undefined)?.limit;
  const limit = options.limit === undefined ? generatedFor : { n: options.limit, seed: options.seed };
  const run: ConnerRunFacts = {
    evidence: setup.evidence.id,
    choices: options.choices,
    ...scorerFacts(setup),
    ...(limit === undefined ? {} : { limit }),
  };
  const summaries = connerRunSummaries(records, {
    resamples: options.resamples,
    seed: options.seed,
    run,
    knowledge: files.flatMap((f) => f.items),
    ...(options.ratings ? { ratings: options.ratings } : {}),
    datasets: (g, s) => sources.get(`${g}\u0000${s}`) ?? {},
  });
  return { records, summaries };
}

/** The (generator, setting, id) of each knowledge text, as ratings name them. */
export function ratedKeys(files: readonly KnowledgeFile[]): Array<{ id: string; generator: string; setting: string }> {
  return files.flatMap((f) => f.items.map((k) => ({ id: k.id, generator: k.generator, setting: settingLabel(k) })));
}

export interface ScoreToFilesOptions extends ScoreFilesOptions {
  /** The per-item scores JSONL. */
  output: string;
  /** The results folder: per generator and setting, `<generator>.<setting>.summary.json` (llmkb-summary-v2) and `.records.jsonl`. */
  out: string;
  /** Wikipedia pageviews by topic, kept in each record whose topic has them (the long-tail analysis); `pageviewsFile` names their file in the note on topics without. */
  pageviews?: ReadonlyMap<string, number>;
  pageviewsFile?: string;
  /** Where notes go (the CLI: stderr); default nowhere. */
  log?: (line: string) => void;
}

/**
 * `llmkb conner score` as one call (the command prints): the files scored and summarized, the
 * pageviews attached, the per-item scores and each generator and setting's summary and records
 * written. Returns the records, the summaries and the summary files written.
 */
export async function scoreToFiles(
  files: readonly KnowledgeFile[],
  options: ScoreToFilesOptions,
): Promise<{ records: ScoredKnowledge[]; summaries: MethodSummary[]; written: string[] }> {
  const { output, out, pageviews, pageviewsFile, log = () => {}, ...scoring } = options;
  const { records: scored, summaries } = await scoreFiles(files, scoring);
  const records = pageviews ? scored.map((r) => (pageviews.has(r.topic) ? { ...r, pageviews: pageviews.get(r.topic)! } : r)) : scored;
  if (pageviews) {
    const without = records.filter((r) => !pageviews.has(r.topic)).length;
    if (without > 0)
      log(`note: ${without} of ${records.length} knowledge texts have a topic without pageviews in ${pageviewsFile ?? ''}: left out of the long-tail analysis`);
  }
  const empty = records.filter((r) => r.knowledge.trim() === '').length;
  if (empty > 0)
    log(
      `note: ${empty} of ${records.length} knowledge texts are empty: factuality, relevance, coherence and informativeness are undefined for them (said in their records and the protocol)`,
    );
  writeFileAtomic(output, toJsonl(records));
  try {
    mkdirSync(out, { recursive: true });
  } catch (error) {
    throw fileAccessError(out, error, 'write', 'folder');
  }
  const written: string[] = [];
  for (const summary of summaries) {
    const paths = runResultFiles(out, summary.model, summary.setting);
    writeFileAtomic(paths.records, toJsonl(records.filter((r) => r.generator === summary.model && r.setting === summary.setting)));
    writeJsonFile(paths.summary, summary);
    written.push(paths.summary);
  }
  return { records, summaries, written };
}
