/**
 * Scripted CONNER results (no model): scored knowledge records with sentences, evidence, NLI
 * vectors, every score and scorer id, written as `llmkb conner score --out` writes them. Used by
 * the results, view and report tests, the view benchmark and the README screenshots.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { DEFAULT_CHOICES } from '../../src/methods/conner/conner-choices.js';
import type { ConnerRunFacts } from '../../src/methods/conner/conner-run-facts.js';
import type { FactualityLabel } from '../../src/methods/conner/scoring/factuality.js';
import type { ScoredKnowledge } from '../../src/methods/conner/scoring/score-knowledge.js';
import { connerRunSummaries } from '../../src/methods/conner/summary/conner-summary.js';
import type { MethodSummary } from '../../src/methods/method-summary.js';
import { runResultFiles } from '../../src/io/result-files.js';

export const CONNER_HOSTILE = '<script>window.__pwned = 3</script><img src=x onerror="window.__pwned = 4">';

const SCORERS = {
  factuality: 'nli mock:nli; evidence reference; min over sentences',
  relevance: 'mock:ranker',
  coherence_sentence: '1/PPL gguf:stories260K',
  coherence_paragraph: '1/PPL of the whole text: gguf:stories260K',
  informativeness: 'gguf:stories260K',
  helpfulness: 'gguf:stories260K; u = 2',
  validity: 'nli mock:nli; span: Eq. 7, open: evidence reference',
};

const TOPICS = ['Gallbladder', 'Amazon River', 'Mount Everest', 'Jazz', 'Photosynthesis'];

/** One scored knowledge text; `quality` in [0, 1] moves every score, the label follows from the NLI vectors. */
export function connerRecord(i: number, generator: string, quality: number, options: { setting?: string; knowledge?: string } = {}): ScoredKnowledge {
  const topic = TOPICS[i % TOPICS.length]!;
  const wave = ((i * 37) % 11) / 10; // 0 .. 1, the same for every generator
  const fact = Math.round(1000 * Math.min(1, Math.max(0, quality * 0.7 + wave * 0.3))) / 1000;
  const label: FactualityLabel = fact >= 0.5 ? 'factual-consistent' : i % 3 === 0 ? 'factual-inconsistent' : 'non-verified';
  const vector: [number, number, number] =
    label === 'factual-consistent'
      ? [fact, (1 - fact) * 0.7, (1 - fact) * 0.3]
      : label === 'non-verified'
        ? [fact, 1 - fact - 0.05, 0.05]
        : [fact, 0.1, 0.9 - fact];
  const knowledge = options.knowledge ?? `${topic} is a subject of query ${i}. It was described by ${generator} in detail. The rivers of ${topic} are long.`;
  const sentences = knowledge.split(/(?<=\.)\s+/).filter(Boolean);
  const round = (v: number) => Math.round(1e4 * v) / 1e4;
  return {
    id: `nq:${i + 1}`,
    generator,
    setting: options.setting ?? 'zero-shot',
    task: 'qa',
    topic,
    query: `what is known about ${topic.toLowerCase()} (${i})`,
    knowledge,
    goldAnswer: `gold ${i}`,
    answer: i % 4 === 0 ? `gold ${i}` : `answer ${i}`,
    answerer: 'gguf:answerer',
    answerWithoutKnowledge: `guess ${i}`,
    scores: {
      factuality: fact,
      factualConsistent: round(vector[0]),
      nonVerified: round(vector[1]),
      factualInconsistent: round(vector[2]),
      factualityLabel: label,
      relevance: round(0.2 + 0.6 * quality * wave),
      coherenceSentence: round(0.05 + 0.1 * wave),
      coherenceParagraph: round(0.08 + 0.05 * quality),
      informativeness: round(0.6 + 0.3 * wave),
      helpfulness: round(Math.max(0, 0.3 * quality - 0.1 * wave)),
      helpfulnessRaw: round(0.3 * quality - 0.1 * wave),
      validity: i % 4 === 0 ? 1 : 0,
    },
    sentences: sentences.map((s, k) => ({
      sentence: s,
      ...(k < 2 ? { evidence: { source: 'reference', text: `Reference passage on ${topic}, sentence ${k + 1}.` } } : {}),
      nli: k < 2 ? vector : [0, 1, 0],
      candidates: k < 2 ? 1 : 0,
    })),
    sentenceInversePerplexity: sentences.map((_, k) => round(0.05 + 0.02 * k)),
    helpfulness: { loss: 2.5 - quality, baselineLosses: [2.9, 3.1], negatives: [`nq:${((i + 1) % 50) + 1}`, `nq:${((i + 7) % 50) + 1}`] },
    validityEvidence: null,
    scorers: { ...SCORERS },
    premiseCuts: 0,
    flooredTokens: 0,
    notes: [],
  };
}

/** Records of several generators over the same queries (so they pair), item 3 of the first with hostile knowledge. */
export function connerRecords(
  items: number,
  generators: ReadonlyArray<[string, number]> = [
    ['gen-a', 0.8],
    ['gen-b', 0.4],
  ],
  options: { hostile?: boolean } = {},
): ScoredKnowledge[] {
  return generators.flatMap(([g, q], gi) =>
    Array.from({ length: items }, (_, i) =>
      connerRecord(i, g, q, gi === 0 && i === 2 && options.hostile ? { knowledge: `Hostile ${CONNER_HOSTILE} knowledge. It has a second sentence.` } : {}),
    ),
  );
}

/** What the fixture's scoring command chose. */
export const CONNER_FIXTURE_RUN: ConnerRunFacts = { evidence: 'reference', choices: { ...DEFAULT_CHOICES, negatives: 2 }, unscored: [] };

/** The results folder of `llmkb conner score --out DIR`: a summary and a records file per generator and setting. */
export function writeConnerResults(dir: string, records: readonly ScoredKnowledge[], resamples = 200): MethodSummary[] {
  mkdirSync(dir, { recursive: true });
  const summaries = connerRunSummaries(records, { resamples, seed: 0, run: CONNER_FIXTURE_RUN, datasets: (g) => ({ [`${g}.jsonl`]: '0'.repeat(64) }) });
  for (const s of summaries) {
    const files = runResultFiles(dir, s.model, s.setting);
    writeFileSync(
      files.records,
      `${records
        .filter((r) => r.generator === s.model && r.setting === s.setting)
        .map((r) => JSON.stringify(r))
        .join('\n')}\n`,
    );
    writeFileSync(files.summary, `${JSON.stringify(s, null, 2)}\n`);
  }
  return summaries;
}
