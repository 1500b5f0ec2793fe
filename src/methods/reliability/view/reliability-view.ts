/**
 * How `llmkb view` shows reliability runs: an item is a question with its judged response (label,
 * uninformative sub-type, source or UnseenQA template, answer type) and its Cons(q, r); the item
 * page shows the prompt sent, the raw and cut response, why it got its label and every MCQ; the run
 * page breaks the labels down by source, template, answer type and sub-type.
 */
import type { MethodView, ViewItem } from '../../method-presentation.js';
import type { Run } from '../../../store/run-store.js';
import { METRIC_KEYS } from '../metrics/reliability-metrics.js';
import { RELIABILITY_METRIC_DEFS } from '../metrics/metric-defs.js';
import { summarizeRun, type ScoredRecord } from '../metrics/summarize-run.js';
import { reliabilityItemPage } from './item-page.js';
import { reliabilityRunSections } from './run-sections.js';

const FIELDS = {
  label: '$.label',
  subtype: '$.uninformativeType',
  source: '$.source',
  answerType: '$.answerType',
  dataset: '$.dataset',
  judgedBy: '$.judgedBy',
  question: '$.question',
  response: '$.response',
} as const;

/** A stored run's items: its judged records (or its asked ones, before judging) with their Cons(q, r). */
function* items(run: Run): Generator<ViewItem> {
  const judged = run.recordIds('judge').length > 0;
  const consistency = new Map<string, number>();
  for (const { itemId, fields } of run.project('consistency', { consistency: '$.consistency' })) if (typeof fields.consistency === 'number') consistency.set(itemId, fields.consistency);
  for (const { itemId, seq, fields } of run.project(judged ? 'judge' : 'ask', FIELDS)) {
    yield { itemId, seq, ...(fields as Omit<ViewItem, 'itemId' | 'seq'>), consistency: consistency.get(itemId) ?? null };
  }
}

function itemOf(record: Record<string, unknown>, seq: number): ViewItem {
  const text = (k: string) => (typeof record[k] === 'string' ? (record[k] as string) : null);
  return {
    itemId: text('id') ?? String(seq), seq, label: text('label'), subtype: text('uninformativeType'), source: text('source'), answerType: text('answerType'), dataset: text('dataset'),
    judgedBy: text('judgedBy'), question: text('question'), response: text('response'), consistency: typeof record.consistency === 'number' ? record.consistency : null,
  };
}

/** Indexed items as the metrics read them (items with a label only). */
function scored(list: readonly ViewItem[]): ScoredRecord[] {
  return list
    .filter((i) => i.label)
    .map((i) => ({ id: i.itemId, dataset: i.dataset as 'seen' | 'unseen', source: i.source ?? '', answerType: i.answerType ?? null, label: i.label as ScoredRecord['label'], uninformativeType: (i.subtype ?? null) as ScoredRecord['uninformativeType'], consistency: i.consistency ?? null, ...(i.judgedBy === 'lexical' ? { approximate: true } : {}) }));
}

export const reliabilityView: MethodView = {
  items,
  itemOf,
  itemTitles: { label: 'label', subtype: 'uninformative type', source: 'source', answerType: 'answer type', dataset: 'dataset', question: 'Question', response: 'Response', consistency: 'consistency' },
  columnTitles: { consistency: 'Cons' },
  countTitles: { source: 'source / template' },
  labelOrder: ['correct', 'wrong', 'uninformative'],
  stageCommands: ['llmkb ask', 'judge', 'consistency'],
  sourceGroups: [{ name: 'template', title: 'template', pattern: '^T\\d+$' }],
  itemPage: reliabilityItemPage,
  runSections: reliabilityRunSections,
  async summarizeItems(list, run, options) {
    const records = scored(list);
    if (records.length === 0) return undefined;
    return summarizeRun(records, { model: run.label, setting: run.setting, resamples: options.resamples, ...(run.runId ? { runId: run.runId } : {}), ...(run.modelIdentity ? { modelIdentity: run.modelIdentity } : {}) });
  },
  async pairedRows(a, b, names) {
    const { pairedBootstrap } = await import('../across-runs/compare-runs.js');
    const { computeMetrics } = await import('../metrics/reliability-metrics.js');
    const ra = scored(a);
    const rb = scored(b);
    const ma = computeMetrics(ra);
    const mb = computeMetrics(rb);
    return RELIABILITY_METRIC_DEFS.filter((d) => (METRIC_KEYS as readonly string[]).includes(d.id) && d.headline).map((def) => {
      const t = pairedBootstrap(ra, rb, def.id as never, { names });
      return { def, a: ma[def.id as keyof typeof ma] ?? null, b: mb[def.id as keyof typeof mb] ?? null, difference: t.difference, interval: t.interval, p: t.p, n: t.questions };
    });
  },
};
