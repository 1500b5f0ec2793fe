/**
 * How `llmkb view` shows reliability runs: an item is a question with its judged response (label,
 * uninformative sub-type, source or UnseenQA template, answer type) and its Cons(q, r); the item
 * page shows the prompt sent, the raw and cut response, why it got its label and every MCQ; the run
 * page breaks the labels down by source, template, answer type and sub-type.
 */
import type { ItemFieldDef, ItemsOptions, MethodView, ViewItem } from '../../method-presentation.js';
import type { Run } from '../../../store/run-store.js';
import { METRIC_KEYS } from '../metrics/reliability-metrics.js';
import { RELIABILITY_METRIC_DEFS } from '../metrics/metric-defs.js';
import { summarizeRun, type ScoredRecord } from '../metrics/summarize-run.js';
import { reliabilityItemPage } from './item-page.js';
import { METRIC_ITEMS } from './metric-items.js';
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

/** The fields without the question and the response, for a summary. */
const { question: _question, response: _response, ...SMALL_FIELDS } = FIELDS;

/** The item fields the viewer filters and sorts by, beside its columns: the MCQs re-asked and the invalid answers among them (Eq. 4), who judged. */
const ITEM_FIELDS: readonly ItemFieldDef[] = [
  {
    name: 'mcq_invalid',
    title: 'invalid MCQ answers',
    columnTitle: 'Invalid MCQs',
    kind: 'number',
    format: 'integer',
    description: 'MCQ answers of this response from which no option could be read (Eq. 4 counts them as not choosing the response)',
  },
  { name: 'mcqs', title: 'MCQs asked', kind: 'number', format: 'integer', description: 'MCQs asked to re-ask this response', column: false },
  {
    name: 'judged_by',
    title: 'judged by',
    kind: 'text',
    description: 'who decided the label: a rule, exact match, the judge LLM, or the lexical rule (approximate)',
    column: false,
  },
];

/** The MCQ counts of a consistency record (`consistencyDetail`). */
function mcqFields(detail: unknown): { mcqs: number | null; mcq_invalid: number | null } {
  const d = (detail ?? {}) as { mcqs?: unknown; invalid?: unknown };
  return { mcqs: typeof d.mcqs === 'number' ? d.mcqs : null, mcq_invalid: typeof d.invalid === 'number' ? d.invalid : null };
}

/**
 * The MCQs of a consistency record and the invalid answers among them, from the stage's `mcqs` as
 * SQLite's JSON text, without parsing it: each MCQ has one `parse` key, and in JSON text the key
 * `"parse":` can only be a key (a quote inside a string is escaped), so counting the keys counts
 * the MCQs, and counting `"parse":"invalid"` the invalid answers.
 */
export function mcqCounts(json: string): { mcqs: number; invalid: number } {
  return { mcqs: json.split('"parse":').length - 1, invalid: json.split('"parse":"invalid"').length - 1 };
}

/** A stored run's items: its judged records (or its asked ones, before judging) with their Cons(q, r) and MCQ counts. */
function* items(run: Run, options: ItemsOptions = {}): Generator<ViewItem> {
  const judged = run.recordIds('judge').length > 0;
  const consistency = new Map<string, { consistency: number | null; mcqs: number | null; mcq_invalid: number | null }>();
  // The stage keeps each MCQ with how its answer was parsed (the records file keeps only the counts).
  for (const { itemId, fields } of run.project('consistency', { consistency: '$.consistency', mcqs: '$.mcqs' })) {
    const detail = typeof fields.mcqs === 'string' ? mcqCounts(fields.mcqs) : undefined;
    consistency.set(itemId, { consistency: typeof fields.consistency === 'number' ? fields.consistency : null, ...mcqFields(detail) });
  }
  for (const { itemId, seq, fields } of run.project(judged ? 'judge' : 'ask', options.text === false ? SMALL_FIELDS : FIELDS)) {
    const c = consistency.get(itemId);
    yield {
      itemId,
      seq,
      ...(fields as Omit<ViewItem, 'itemId' | 'seq'>),
      consistency: c?.consistency ?? null,
      fields: { mcqs: c?.mcqs ?? null, mcq_invalid: c?.mcq_invalid ?? null, judged_by: (fields.judgedBy as string | null | undefined) ?? null },
    };
  }
}

function itemOf(record: Record<string, unknown>, seq: number): ViewItem {
  const text = (k: string) => (typeof record[k] === 'string' ? (record[k] as string) : null);
  return {
    itemId: text('id') ?? String(seq),
    seq,
    label: text('label'),
    subtype: text('uninformativeType'),
    source: text('source'),
    answerType: text('answerType'),
    dataset: text('dataset'),
    judgedBy: text('judgedBy'),
    question: text('question'),
    response: text('response'),
    consistency: typeof record.consistency === 'number' ? record.consistency : null,
    fields: { ...mcqFields(record.consistencyDetail), judged_by: text('judgedBy') },
  };
}

/** Indexed items as the metrics read them (items with a label only). */
function scored(list: readonly ViewItem[]): ScoredRecord[] {
  return list
    .filter((i) => i.label)
    .map((i) => {
      // Its MCQ counts, so the summary counts invalid answers and warns of them as a run's summary file does.
      const mcqs = i.fields?.mcqs;
      const invalid = i.fields?.mcq_invalid;
      const detail = typeof mcqs === 'number' && typeof invalid === 'number' ? { consistencyDetail: { mcqs, invalid } } : {};
      return {
        id: i.itemId,
        dataset: i.dataset as 'seen' | 'unseen',
        source: i.source ?? '',
        answerType: i.answerType ?? null,
        label: i.label as ScoredRecord['label'],
        uninformativeType: (i.subtype ?? null) as ScoredRecord['uninformativeType'],
        consistency: i.consistency ?? null,
        ...detail,
        ...(i.judgedBy === 'lexical' ? { approximate: true } : {}),
      };
    });
}

export const reliabilityView: MethodView = {
  items,
  itemOf,
  itemFields: ITEM_FIELDS,
  metricItems: (id) => METRIC_ITEMS[id],
  itemTitles: {
    label: 'label',
    subtype: 'uninformative type',
    source: 'source',
    answerType: 'answer type',
    dataset: 'dataset',
    question: 'Question',
    response: 'Response',
    consistency: 'consistency',
  },
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
    return summarizeRun(records, {
      model: run.label,
      setting: run.setting,
      resamples: options.resamples,
      ...(run.runId ? { runId: run.runId } : {}),
      ...(run.modelIdentity ? { modelIdentity: run.modelIdentity } : {}),
    });
  },
  async pairedRows(a, b, names) {
    const { pairedBootstrap } = await import('../across-runs/paired-bootstrap.js');
    const { computeMetrics } = await import('../metrics/reliability-metrics.js');
    const ra = scored(a);
    const rb = scored(b);
    const ma = computeMetrics(ra);
    const mb = computeMetrics(rb);
    return RELIABILITY_METRIC_DEFS.filter((d) => (METRIC_KEYS as readonly string[]).includes(d.id) && d.headline).map((def) => {
      const t = pairedBootstrap(ra, rb, def.id as never, { names });
      return {
        def,
        a: ma[def.id as keyof typeof ma] ?? null,
        b: mb[def.id as keyof typeof mb] ?? null,
        difference: t.difference,
        interval: t.interval,
        p: t.p,
        n: t.questions,
      };
    });
  },
};
