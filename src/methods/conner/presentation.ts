/**
 * How CONNER runs are shown: the paper's Tables 2-3 and paired differences (compare, report), a
 * run's headline and examples, and the viewer's columns and item page (sentences, evidence, NLI
 * verdicts, scores).
 */
import type { ItemFieldDef, MethodPresentation, MetricItems, ViewItem } from '../method-presentation.js';
import { CONNER_METRIC_DEFS } from './metric-defs.js';
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

/** The per-item scores of the six perspectives (Eqs. 1-8), each a field the viewer filters and sorts by: name, its key in `scores`, titles. */
const SCORES: ReadonlyArray<[name: string, key: string, title: string, columnTitle: string]> = [
  ['factuality', 'factuality', 'S_fact (factuality)', 'S_fact'],
  ['relevance', 'relevance', 'relevance', 'Relev.'],
  ['coherence_sentence', 'coherenceSentence', 'sentence coherence', 'Coh-s.'],
  ['coherence_paragraph', 'coherenceParagraph', 'paragraph coherence', 'Coh-p.'],
  ['informativeness', 'informativeness', 'informativeness', 'Inform.'],
  ['helpfulness', 'helpfulness', 'helpfulness (this item alone)', 'Helpful.'],
  ['validity', 'validity', 'validity', 'Valid.'],
];

const ITEM_FIELDS: readonly ItemFieldDef[] = SCORES.map(([name, key, title, columnTitle]) => {
  const def = CONNER_METRIC_DEFS.find((d) => d.id === name);
  const description =
    key === 'helpfulness'
      ? "this item's Eq. 6 alone (the run's helpfulness is taken over the set)"
      : def
        ? `this item's ${def.description}${def.equation ? ` (${def.equation})` : ''}`
        : undefined;
  return { name, title, columnTitle, kind: 'number' as const, format: 'number' as const, ...(description ? { description } : {}) };
});

/** The items behind a share of factuality labels: the items of that label; every other metric is over all items. */
const METRIC_ITEMS: Readonly<Record<string, MetricItems>> = {
  fact_consistent: {
    selection: { label: 'factual-consistent' },
    title: 'the knowledge texts labelled factual-consistent (its numerator; all items are its denominator)',
  },
  non_verified: { selection: { label: 'non-verified' }, title: 'the knowledge texts labelled non-verified (its numerator; all items are its denominator)' },
  fact_inconsistent: {
    selection: { label: 'factual-inconsistent' },
    title: 'the knowledge texts labelled factual-inconsistent (its numerator; all items are its denominator)',
  },
};

function scoreFields(scores: Record<string, unknown>): Record<string, number | null> {
  return Object.fromEntries(SCORES.map(([name, key]) => [name, typeof scores[key] === 'number' ? (scores[key] as number) : null]));
}

function* items(run: Run, options: { text?: boolean } = {}): Generator<ViewItem> {
  const { question: _question, response: _response, ...small } = FIELDS;
  const paths = { ...(options.text === false ? small : FIELDS), ...Object.fromEntries(SCORES.map(([name, key]) => [`score_${name}`, `$.scores.${key}`])) };
  for (const { itemId, seq, fields } of run.project('score', paths)) {
    const { label, source, dataset, question = null, response = null } = fields as Record<keyof typeof FIELDS, string | null>;
    yield {
      itemId,
      seq,
      label,
      source,
      dataset,
      question,
      response,
      fields: Object.fromEntries(SCORES.map(([name]) => [name, typeof fields[`score_${name}`] === 'number' ? (fields[`score_${name}`] as number) : null])),
    };
  }
}

function itemOf(record: Record<string, unknown>, seq: number): ViewItem {
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const scores = (record.scores ?? {}) as Record<string, unknown>;
  return {
    itemId: text(record.id) ?? String(seq),
    seq,
    label: text(scores.factualityLabel),
    source: text(record.topic),
    dataset: text(record.task),
    question: text(record.query),
    response: text(record.knowledge),
    fields: scoreFields(scores),
  };
}

/** A scored knowledge text. */
function claimsRecord(record: Record<string, unknown>): boolean {
  return typeof record.generator === 'string' && typeof record.knowledge === 'string' && typeof record.scores === 'object';
}

export const connerPresentation: MethodPresentation = {
  reportTitle: 'llmkb report: quality of LLM-generated knowledge (CONNER)',
  approximateNote:
    "computed some columns otherwise than the paper's tables, given the scorers named (marked ≈ per column in the CONNER tables; the departures above say why)",
  recordSchema: z.object({ id: z.string() }).passthrough(),
  claimsRecord,
  summarizeRecordsFile(file, first) {
    if (!claimsRecord(first)) return undefined;
    // CONNER's records hold no summary of their own: the run's setting, scorers and protocol are in the summary written beside them.
    throw new InputFileError(
      file,
      1,
      undefined,
      `CONNER records with no summary beside them (${resultFiles(recordsFileBase(file)).summary} is missing)`,
      'Give the .summary.json that `llmkb conner score --out DIR` writes beside its .records.jsonl (compare reads both), or re-score with --out: every call comes from the cache.',
    );
  },
  compare: compareConner,
  resultTable: formatConnerRuns,
  reportSections: connerReportSections,
  runHeadline: connerRunHeadline,
  runDetails: connerRunDetails,
  view: {
    items,
    itemOf,
    itemTitles: {
      label: 'factuality',
      source: 'topic',
      dataset: 'task',
      question: 'Query',
      response: 'Knowledge',
      subtype: null,
      answerType: null,
      consistency: null,
    },
    itemFields: ITEM_FIELDS,
    metricItems: (id) => METRIC_ITEMS[id],
    itemPage: (records) => connerItemPage(records),
    stageCommands: ['llmkb conner generate', 'conner score'],
  },
};
