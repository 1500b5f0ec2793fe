/**
 * Builds the data sets from their sources and writes them with a dataset card next to each:
 * `seenqa.jsonl`, `unseenqa.jsonl`, `r_seen.jsonl`, `r_unseen.jsonl` in the output folder.
 * Same sources + same seed + same options = byte-identical files.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_CODES, LlmkbError } from '../../../errors.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import { normalizeAnswer } from '../../../text/normalize-answer.js';
import { Progress } from '../../../progress/progress.js';
import { VERSION } from '../../../version.js';
import { type QAItem, readQAItems } from './qa-item.js';
import { sha256 } from '../../../io/checksum.js';
import { toJsonl } from '../../../io/jsonl.js';
import { makeFolder, writeFileAtomic } from '../../../io/files.js';
import { SHOWN_ANSWER_RULE } from './answer-text.js';
import { buildRSeen } from './repositories.js';
import { buildSeenQA, LONG_TAIL_POPULARITY, SEEN_SOURCES, type SeenSourceStats } from './seenqa.js';
import { localSourcePath, resolveSourceFile, SOURCE_FILES, type ResolvedSource, type ResolveOptions, type SourceFileKey } from './source-files.js';
import {
  readCsvColumns,
  readDprTsv,
  readNqOpenJsonl,
  readPopqaCollabJson,
  readPopqaLongtailJsonl,
  type SeenSource,
  type SourceQuestion,
} from './source-readers.js';
import { detectTimeSensitive, KEYWORD_RULE_ID, KEYWORD_RULE_QUALITY, type TimeSensitiveMethod } from './time-sensitive.js';
import { buildUnseenQA, PAPER_CUTOFF, type DroppedTemplate } from './unseenqa.js';

import { DATASET_FILES } from '../defaults.js';

export { DATASET_FILES };

export interface BuildOptions extends ResolveOptions {
  outDir: string;
  seed: number;
}

/** The source files of SeenQA's questions, of the few-shot repositories' pairs, and of the templates' fillers (UnseenQA, R_unseen). */
const SEENQA_SOURCES = ['nqEval', 'triviaqaEval', 'popqa'] as const satisfies readonly SourceFileKey[];
const REPOSITORY_SOURCES = ['nqPool', 'triviaqaPool', 'popqa'] as const satisfies readonly SourceFileKey[];
const FILLER_SOURCES = ['nocs', 'events'] as const satisfies readonly SourceFileKey[];

/** The source files (SOURCE_FILES keys) a data set is built from. */
export function sourcesOf(dataset: 'seenqa' | 'unseenqa' | 'repositories', options: { popqaLongtail?: boolean } = {}): SourceFileKey[] {
  if (dataset === 'seenqa') return [...SEENQA_SOURCES, ...(options.popqaLongtail ? (['popqaLongtail'] as const) : [])];
  if (dataset === 'unseenqa') return [...FILLER_SOURCES];
  return [...REPOSITORY_SOURCES, ...FILLER_SOURCES];
}

/**
 * Checks that a data directory holds every source file of these data sets, before any work (a
 * command then opens no store and writes nothing when one is missing).
 */
export function checkLocalSources(keys: readonly SourceFileKey[], dataDir: string): void {
  for (const key of keys) localSourcePath(SOURCE_FILES[key], dataDir);
}

async function resolveAll(keys: readonly SourceFileKey[], options: ResolveOptions): Promise<Record<string, ResolvedSource>> {
  const out: Record<string, ResolvedSource> = {};
  for (const key of keys) out[key] = await resolveSourceFile(SOURCE_FILES[key], options);
  return out;
}

function uniqueBySourceId(questions: SourceQuestion[]): SourceQuestion[] {
  const seen = new Set<string>();
  return questions.filter((q) => (seen.has(q.sourceId) ? false : (seen.add(q.sourceId), true)));
}

function sourcesTable(resolved: Record<string, ResolvedSource>): string {
  const rows = Object.values(resolved).map(
    (r) =>
      `| ${r.file.name} | ${r.file.description} | \`${r.sha256}\`${r.checksumDiffers ? ' (differs from the pinned checksum)' : ''} | ${r.origin} | ${r.file.licence} | ${r.file.url} |`,
  );
  return ['| file | content | sha256 | from | licence | public home |', '| --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** Text for a Markdown table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ');
}

/**
 * Writes a data set with its card: `<name>.card.md` for people and `<name>.card.json` for
 * programs (an evaluation reads from it how the set was built, e.g. which time filter SeenQA
 * had, into its protocol block).
 */
function writeDataset(outDir: string, name: string, items: readonly QAItem[], card: string, facts: Record<string, unknown> = {}): string {
  makeFolder(outDir);
  const content = toJsonl(items);
  const checksum = sha256(content);
  writeFileAtomic(join(outDir, name), content);
  writeFileAtomic(
    join(outDir, name.replace(/\.jsonl$/, '.card.md')),
    `${card.trim()}\n\n## Output\n\n- \`${name}\`: ${items.length} items, sha256 \`${checksum}\`\n- built by llmkb ${VERSION}\n`,
  );
  const json = { schema: 'llmkb-dataset-card-v1', file: name, items: items.length, sha256: checksum, llmkbVersion: VERSION, ...facts };
  writeFileAtomic(join(outDir, name.replace(/\.jsonl$/, '.card.json')), `${JSON.stringify(json, null, 2)}\n`);
  return checksum;
}

export interface SeenQAReport {
  file: string;
  checksum: string;
  items: number;
  /** Per source built (the paper's three, plus `popqa-longtail` when asked for). */
  stats: Partial<Record<SeenSource, SeenSourceStats>>;
  sources: SeenSource[];
  method: TimeSensitiveMethod;
  unparsedBatches: number;
}

/**
 * What the card says about TriviaQA's subset. The paper uses TriviaQA's Wikipedia subset; none of
 * the source files can tell it apart (checked field by field): the DPR open-domain splits have
 * only question and alias list; the CtrlA 1,000-question file adds TriviaQA question ids, whose
 * prefixes (sfq_, qw_, odql_, ...) name the quiz website, not the evidence domain; EVOUNA's TQ
 * file has no subset field either. Membership in the Wikipedia subset is a property of a
 * question's evidence documents, which none of these files carry.
 */
export const TRIVIAQA_SUBSET_NOTE =
  "TriviaQA subset: the paper uses TriviaQA's Wikipedia subset, but the source file (the DPR open-domain test split, i.e. TriviaQA's unfiltered web dev set) does not say which questions belong to it, and neither does any other TriviaQA file llmkb reads (their fields: question, alias list, and in the CtrlA subset a question id whose prefix names the quiz website). " +
  'SeenQA therefore samples from all 11,313 open-domain test questions, Wikipedia and web alike (in both, an answer that is a Wikipedia entity comes with its Wikipedia aliases).';

function keywordRuleText(): string {
  const q = KEYWORD_RULE_QUALITY;
  return `keyword rule \`${KEYWORD_RULE_ID}\` (no LLM configured; approximate). On llmkb's hand-labelled set of ${q.questions} NQ/TriviaQA questions (${q.timeSensitive} time-sensitive) it has precision ${q.precision.toFixed(2)} and recall ${q.recall.toFixed(2)} for "time-sensitive"`;
}

export async function buildSeenQAFiles(
  options: BuildOptions & { perSource: number; timeSensitiveExecutor?: ModelExecutor; batchSize?: number; popqaLongtail?: boolean },
): Promise<SeenQAReport> {
  const resolved = await resolveAll(sourcesOf('seenqa', options), options);
  const popqa = uniqueBySourceId(readPopqaCollabJson(resolved.popqa!.path));
  const popqaIds = new Set(popqa.map((q) => q.sourceId));
  const pools: Partial<Record<SeenSource, SourceQuestion[]>> = {
    nq: readNqOpenJsonl(resolved.nqEval!.path),
    triviaqa: readDprTsv(resolved.triviaqaEval!.path, 'triviaqa'),
    // PopQA as the paper samples it: the random rows only. The long-tail file is its own source.
    popqa,
    // 200 long-tail rows are also in the random sample: they stay with `popqa`, so no question appears twice.
    ...(options.popqaLongtail
      ? { 'popqa-longtail': uniqueBySourceId(readPopqaLongtailJsonl(resolved.popqaLongtail!.path)).filter((q) => !popqaIds.has(q.sourceId)) }
      : {}),
  };
  const sources: SeenSource[] = [...SEEN_SOURCES, ...(options.popqaLongtail ? (['popqa-longtail'] as const) : [])];
  let method = { kind: KEYWORD_RULE_ID } as TimeSensitiveMethod;
  const built = await buildSeenQA(pools, {
    seed: options.seed,
    perSource: options.perSource,
    sources,
    timeSensitive: async (questions, source) => {
      // With a judge LLM this is the slow part of building SeenQA (a call per batch): it shows
      // progress like every stage; the keyword rule is instant.
      const progress = options.timeSensitiveExecutor ? new Progress(`time-sensitive filter, ${source} questions`, questions.length) : undefined;
      const result = await detectTimeSensitive(questions, {
        ...(options.timeSensitiveExecutor ? { executor: options.timeSensitiveExecutor } : {}),
        batchSize: options.batchSize ?? 20,
        ...(progress
          ? {
              onProgress: (done: number, cached: boolean) => {
                for (let i = 0; i < done; i++) progress.tick({ cached });
              },
            }
          : {}),
      });
      progress?.finish();
      method = result.method;
      return result;
    },
  });
  const statRows = sources.map((s) => {
    const st = built.stats[s]!;
    return `| ${s} | ${st.pool} | ${st.duplicates} | ${st.removed['why-question']} | ${st.removed['multiple-answers']} | ${st.removed['long-answer']} | ${st.factoid} | ${st.examined} | ${st.timeSensitive} | ${st.kept} |`;
  });
  const popularityLines = sources
    .filter((s) => built.stats[s]!.popularity !== undefined)
    .map((s) => {
      const p = built.stats[s]!.popularity!;
      return `- ${s}: ${p.longTail} of ${p.known} questions (${((100 * p.longTail) / p.known).toFixed(1)}%) are long-tail (subject popularity < ${LONG_TAIL_POPULARITY} monthly page views)`;
    });
  const methodText =
    method.kind === 'llm'
      ? `LLM \`${method.model}\` with the paper's Table 5 prompt, ${options.batchSize ?? 20} questions per call${built.unparsedBatches ? ` (${built.unparsedBatches} replies had no index list; their questions were kept)` : ''}`
      : keywordRuleText();
  const card = `# SeenQA

Questions about knowledge every evaluated model saw in training (Zheng, Lapata & Pan, section 3.2):
Natural Questions (open), TriviaQA and PopQA${options.popqaLongtail ? ", plus the PopQA long-tail subset as the separate source `popqa-longtail` (asked for with --popqa-longtail; not part of the paper's SeenQA)" : ''}.

- seed: ${options.seed}; questions per source: ${options.perSource}
- steps: factoid extraction (no "why" questions, one distinct answer, shortest answer at most five tokens) -> time-sensitive questions removed -> seeded sampling
- time-sensitive check: ${methodText}
- PopQA: drawn from PopQA's random 2,000-row sample only, as the paper samples PopQA${options.popqaLongtail ? '; `popqa-longtail` items come from the Self-RAG long-tail file (rows not in the random sample)' : ' (the long-tail file is not used; `--popqa-longtail` adds it as its own source)'}
${popularityLines.join('\n')}
- ${TRIVIAQA_SUBSET_NOTE}
- answers: HTML entities decoded (and Wikipedia-title escapes such as %22 in TriviaQA aliases); the first answer of each item is its canonical answer. ${SHOWN_ANSWER_RULE}

## Filter counts per source

| source | pool | duplicate questions | "why" | several answers | answer > 5 tokens | factoid pool | examined | time-sensitive | kept |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${statRows.join('\n')}

"examined": the seeded shuffle of the factoid pool is walked in order until the quota is filled;
every examined question was kept or removed as time-sensitive.

## Sources

${sourcesTable(resolved)}
`;
  const quality = KEYWORD_RULE_QUALITY;
  const timeFilter =
    method.kind === 'llm'
      ? { method: 'llm', model: method.model }
      : {
          method: method.kind,
          note: `keyword rule instead of an LLM: precision ${quality.precision}, recall ${quality.recall} on ${quality.questions} labelled questions`,
        };
  const checksum = writeDataset(options.outDir, DATASET_FILES.seenqa, built.items, card, {
    seed: options.seed,
    perSource: options.perSource,
    sources,
    timeFilter,
    popularity: Object.fromEntries(sources.filter((s) => built.stats[s]!.popularity !== undefined).map((s) => [s, built.stats[s]!.popularity])),
  });
  return {
    file: join(options.outDir, DATASET_FILES.seenqa),
    checksum,
    items: built.items.length,
    stats: built.stats,
    sources,
    method,
    unparsedBatches: built.unparsedBatches,
  };
}

async function readFillers(options: ResolveOptions): Promise<{ resolved: Record<string, ResolvedSource>; countries: string[]; medalEvents: string[] }> {
  const resolved = await resolveAll(FILLER_SOURCES, options);
  const nocs = readCsvColumns(resolved.nocs!.path, ['code', 'country', 'note'] as const);
  // Paris 2024 delegations, less the two that are not a country or region (neutral athletes, refugee team).
  const countries = nocs.filter((r) => r.note === 'P' && r.code !== 'AIN' && r.code !== 'EOR').map((r) => r.country);
  const medalEvents = readCsvColumns(resolved.events!.path, ['event', 'sport'] as const).map((r) => `${r.sport} ${r.event}`);
  return { resolved, countries, medalEvents };
}

export interface UnseenQAReport {
  file: string;
  checksum: string;
  items: number;
  dropped: DroppedTemplate[];
  templates: number;
}

export async function buildUnseenQAFiles(options: BuildOptions & { cutoff?: string; perTemplate?: number }): Promise<UnseenQAReport> {
  const cutoff = options.cutoff ?? PAPER_CUTOFF;
  const { resolved, countries, medalEvents } = await readFillers(options);
  const built = buildUnseenQA(
    { countries, medalEvents },
    { seed: options.seed, cutoff, ...(options.perTemplate === undefined ? {} : { perTemplate: options.perTemplate }) },
  );
  const templates = new Set(built.items.map((i) => i.source)).size;
  const card = `# UnseenQA

Questions whose answers no model can know (Zheng, Lapata & Pan, section 3.2, Table 1): future
events and fictional people. ${templates} templates x ${options.perTemplate ?? 150} questions.

- seed: ${options.seed}; knowledge cutoff: ${cutoff}${cutoff === PAPER_CUTOFF ? " (the paper's date; pass --cutoff with the evaluated model's knowledge cutoff)" : ''}
- fillers: ${countries.length} National Olympic Committees of Paris 2024 (country/region), ${medalEvents.length} Paris 2024 medal events, fictional people drawn from 100 first x 100 middle x 100 last names (llmkb's own lists)
${built.dropped.length ? `\n## Templates dropped by the cutoff\n\n${built.dropped.map((d) => `- ${d.id}: ${d.reason}`).join('\n')}\n` : ''}
## Sources

${sourcesTable(resolved)}
`;
  const checksum = writeDataset(options.outDir, DATASET_FILES.unseenqa, built.items, card, {
    seed: options.seed,
    perTemplate: options.perTemplate ?? 150,
    cutoff,
  });
  return { file: join(options.outDir, DATASET_FILES.unseenqa), checksum, items: built.items.length, dropped: built.dropped, templates };
}

export interface RepositoriesReport {
  rSeen: { file: string; items: number; counts: Record<string, number> };
  rUnseen: { file: string; items: number };
}

/** SeenQA and UnseenQA in `outDir`, which the repositories must be disjoint from: their files, checked to exist. */
export function repositoryInputs(outDir: string): { seenFile: string; unseenFile: string } {
  const seenFile = join(outDir, DATASET_FILES.seenqa);
  const unseenFile = join(outDir, DATASET_FILES.unseenqa);
  for (const f of [seenFile, unseenFile]) {
    if (!existsSync(f)) {
      throw new LlmkbError(`${f} not found: the repositories must be disjoint from it`, {
        hint: `The few-shot settings draw their demonstrations from repositories kept apart from SeenQA and UnseenQA, so those come first: \`llmkb data seenqa --out ${outDir}\` and \`llmkb data unseenqa --out ${outDir}\` (the folder \`llmkb eval\` reads as --data). To ask only your own QA file, add --settings zero-shot.`,
        exitCode: EXIT_CODES.fileAccess,
      });
    }
  }
  return { seenFile, unseenFile };
}

/** R_seen and R_unseen, disjoint from the SeenQA and UnseenQA files in the output folder. */
export async function buildRepositoryFiles(options: BuildOptions & { cutoff?: string; perTemplate?: number }): Promise<RepositoriesReport> {
  const { seenFile, unseenFile } = repositoryInputs(options.outDir);
  const seenQA = readQAItems(seenFile);
  const unseenQA = readQAItems(unseenFile);
  const resolved = await resolveAll(REPOSITORY_SOURCES, options);
  const pools = {
    nq: readDprTsv(resolved.nqPool!.path, 'nq'),
    triviaqa: readDprTsv(resolved.triviaqaPool!.path, 'triviaqa'),
    // The random PopQA sample, like SeenQA: shots about long-tail subjects would not be "seen" knowledge for most models.
    popqa: uniqueBySourceId(readPopqaCollabJson(resolved.popqa!.path)),
  };
  const rSeen = buildRSeen(pools, seenQA, { seed: options.seed });
  const { resolved: fillerSources, countries, medalEvents } = await readFillers(options);
  const unseen = buildUnseenQA(
    { countries, medalEvents },
    { seed: options.seed, cutoff: options.cutoff ?? PAPER_CUTOFF, ...(options.perTemplate === undefined ? {} : { perTemplate: options.perTemplate }) },
  );
  const unseenQuestions = new Set(unseenQA.map((i) => normalizeAnswer(i.question)));
  const rUnseen = unseen.repository.filter((i) => !unseenQuestions.has(normalizeAnswer(i.question)));
  const rSeenCard = `# R_seen: few-shot repository of seen knowledge

Question-answer pairs for dynamic few-shot prompts (paper Appendix D), disjoint from SeenQA
(by source id and by normalised question). The first answer is the one shown in shots.

- shown answer: ${SHOWN_ANSWER_RULE}

- seed: ${options.seed}
- from held-out pools: NQ ${rSeen.counts.nq}, TriviaQA ${rSeen.counts.triviaqa}, PopQA (random-sample rows SeenQA did not use) ${rSeen.counts.popqa}; factoid filter and keyword time-sensitivity rule \`${KEYWORD_RULE_ID}\` applied
- Table 1 template questions about real people (PopQA occupation -> T20, place of birth -> T13, mother -> T8; most popular subjects first): ${rSeen.counts.templates}

## Shown answers

| source | question | shown answer |
| --- | --- | --- |
${rSeen.items.map((i) => `| ${i.source}${i.template ? ` ${String(i.template)}` : ''} | ${cell(i.question)} | ${cell(i.answers[0]!)} |`).join('\n')}

## Sources

${sourcesTable(resolved)}
`;
  const rUnseenCard = `# R_unseen: few-shot repository of unseen knowledge

Table 1 template questions answered "unsure" (paper Appendix D), with fillers not used in
UnseenQA (checked against ${DATASET_FILES.unseenqa}).

- seed: ${options.seed}; cutoff: ${options.cutoff ?? PAPER_CUTOFF}

## Sources

${sourcesTable(fillerSources)}
`;
  writeDataset(options.outDir, DATASET_FILES.rSeen, rSeen.items, rSeenCard);
  writeDataset(options.outDir, DATASET_FILES.rUnseen, rUnseen, rUnseenCard);
  return {
    rSeen: { file: join(options.outDir, DATASET_FILES.rSeen), items: rSeen.items.length, counts: rSeen.counts },
    rUnseen: { file: join(options.outDir, DATASET_FILES.rUnseen), items: rUnseen.length },
  };
}
