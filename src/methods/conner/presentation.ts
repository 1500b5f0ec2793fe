/**
 * How CONNER runs are shown: the paper's Tables 2-3 and paired differences (compare, report), a
 * run's headline and examples, and the viewer's columns and item page (sentences, evidence, NLI
 * verdicts, scores).
 */
import type { MethodPresentation, ViewItem } from '../method-presentation.js';
import type { Run } from '../../store/run-store.js';
import { compareConner } from './across-runs/compare-conner.js';
import { connerItemPage } from './across-runs/conner-item-page.js';
import { connerReportSections } from './across-runs/report-sections.js';
import { connerRunDetails, connerRunHeadline } from './across-runs/run-details.js';
import { formatConnerRuns } from './summary/conner-summary.js';
import { z } from 'zod';
import { InputFileError } from '../../errors.js';
import { recordsFileBase, resultFiles } from '../../io/result-files.js';

const FIELDS = { label: '$.scores.factualityLabel', source: '$.topic', dataset: '$.task', question: '$.query', response: '$.knowledge' } as const;

function* items(run: Run): Generator<ViewItem> {
  for (const { itemId, seq, fields } of run.project('score', FIELDS)) yield { itemId, seq, ...(fields as Omit<ViewItem, 'itemId' | 'seq'>) };
}

function itemOf(record: Record<string, unknown>, seq: number): ViewItem {
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const scores = (record.scores ?? {}) as Record<string, unknown>;
  return { itemId: text(record.id) ?? String(seq), seq, label: text(scores.factualityLabel), source: text(record.topic), dataset: text(record.task), question: text(record.query), response: text(record.knowledge) };
}

/** A scored knowledge text. */
function claimsRecord(record: Record<string, unknown>): boolean {
  return typeof record.generator === 'string' && typeof record.knowledge === 'string' && typeof record.scores === 'object';
}

export const connerPresentation: MethodPresentation = {
  reportTitle: 'llmkb report: quality of LLM-generated knowledge (CONNER)',
  approximateNote: "computed some columns otherwise than the paper's tables, given the scorers named (marked ≈ per column in the CONNER tables; the departures above say why)",
  recordSchema: z.object({ id: z.string() }).passthrough(),
  claimsRecord,
  summarizeRecordsFile(file, first) {
    if (!claimsRecord(first)) return undefined;
    // CONNER's records hold no summary of their own: the run's setting, scorers and protocol are in the summary written beside them.
    throw new InputFileError(file, 1, undefined, `CONNER records with no summary beside them (${resultFiles(recordsFileBase(file)).summary} is missing)`, 'Give the .summary.json that `llmkb conner score --out DIR` writes beside its .records.jsonl (compare reads both), or re-score with --out: every call comes from the cache.');
  },
  compare: compareConner,
  resultTable: formatConnerRuns,
  reportSections: connerReportSections,
  runHeadline: connerRunHeadline,
  runDetails: connerRunDetails,
  view: {
    items,
    itemOf,
    itemTitles: { label: 'factuality', source: 'topic', dataset: 'task', question: 'Query', response: 'Knowledge', subtype: null, answerType: null, consistency: null },
    itemPage: (records) => connerItemPage(records),
    stageCommands: ['llmkb conner generate', 'conner score'],
  },
};
