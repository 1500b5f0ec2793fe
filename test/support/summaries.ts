import type { MetricRecord } from '../../src/methods/reliability/metrics/reliability-metrics.js';
import { summarizeRun, type RunSummary, type ScoredRecord } from '../../src/methods/reliability/metrics/summarize-run.js';
import { paperRows, syntheticRecords, type PaperSetting } from './paper-tables.js';

const TYPES = ['number', 'person', 'time', 'location', 'other'];
const SUBTYPES = ['none', 'unsure', 'repetition'] as const;

/** Scored records with ids, sources and answer types, from the synthetic metric records. */
export function scored(records: readonly MetricRecord[]): ScoredRecord[] {
  return records.map((r, i) => ({
    ...r,
    id: `${r.dataset}-${i}`,
    source: r.dataset === 'seen' ? ['nq', 'triviaqa', 'popqa'][i % 3]! : `T${1 + (i % 20)}`,
    answerType: r.dataset === 'unseen' ? TYPES[Math.floor((i % 20) / 4)]! : null,
    uninformativeType: r.label === 'uninformative' ? SUBTYPES[i % 3]! : null,
  }));
}

/** Summaries of the paper's 26 models in the given settings, rebuilt from their published rates. */
export function paperSummaries(settings: readonly PaperSetting[] = ['zero-shot'], resamples = 20): RunSummary[] {
  return paperRows()
    .filter((r) => settings.includes(r.setting) && r.C_correct !== null && r.UR !== null && r.CR !== null)
    .map((r) =>
      summarizeRun(scored(syntheticRecords(r)), {
        model: r.model,
        setting: r.setting,
        resamples,
        meta: { paramsB: Number.parseFloat(r.params) || 175, fineTuned: /chat|Instruct|Flan|GPT/.test(r.family) },
      }),
    );
}
