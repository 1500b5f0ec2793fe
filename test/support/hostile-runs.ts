/**
 * Runs whose every piece of model or user text is hostile markup, for the escaping tests of
 * `llmkb view` and `llmkb report`: two store runs of the reliability method (written through the
 * real run store and call cache), result files (a records file with a hostile file name, a
 * summary with a hostile model name and protocol notes) and CONNER results. Each field carries
 * its own marker, so a test can tell which field reached which page.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connerRecord, writeConnerResults } from './conner-fixture.js';
import { summarizeRun, type ScoredRecord } from '../../src/methods/reliability/metrics/summarize-run.js';
import { CallCache } from '../../src/store/call-cache.js';
import { cacheKey } from '../../src/store/call-key.js';
import { openDatabase } from '../../src/store/database.js';
import { RunStore } from '../../src/store/run-store.js';

/** The two payloads of the brief: a script element, and a break out of an attribute into an element. */
export const SCRIPT = '<script>x</script>';
export const IMG = '"><img src=x onerror=1>';

/** Hostile text for one field: both payloads, then the field's name. */
export const hostile = (field: string): string => `${SCRIPT}${IMG}${field}`;

/** The same without `/`, for file names. */
export const hostileFileName = (field: string): string => `${IMG}${field}`;

/** What the page must show instead: the text, escaped as escapeHtml does. */
export const escaped = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Raw markup from the payloads: none of these may appear in a page. */
export const RAW_MARKUP = [/<script>x/i, /<img src=x/i, /"><img/i];

export interface HostileStore {
  runs: Array<{ id: string; label: string; setting: string }>;
  /** Item ids of the store runs (the same in both, so they pair). */
  items: string[];
}

/** Two reliability runs, A and B, over the same three items, every text field hostile. */
export async function writeHostileStore(storePath: string): Promise<HostileStore> {
  const db = openDatabase(storePath);
  const store = new RunStore(db);
  const cache = new CallCache(db);
  const out: HostileStore = { runs: [], items: [] };
  const puts: Array<Promise<void>> = [];
  for (const side of ['A', 'B']) {
    const model = hostile(`model-${side}`);
    const label = hostile(`label-${side}`);
    const setting = hostile(`setting-${side}`);
    const run = store.open({ model, dataset: 'sha256:hostile', setting, seed: 1, label, method: 'reliability', params: { maxTokens: 100 } });
    const ask: Array<{ itemId: string; seq: number; record: unknown }> = [];
    const judge: Array<{ itemId: string; seq: number; record: unknown }> = [];
    const cons: Array<{ itemId: string; seq: number; record: unknown }> = [];
    const ids = [hostile('item-id'), 'seen-2', 'unseen-3'];
    out.items = ids;
    ids.forEach((id, i) => {
      const seen = i < 2;
      const question = hostile(`question-${i}`);
      const answers = seen ? [hostile(`answer-${i}`)] : [];
      const response = hostile(`response-${side}-${i}`);
      const rawResponse = `${response}\n${hostile(`raw-${side}-${i}`)}`;
      // Labels differ between the runs on item 0, so the compare page puts it first.
      const label = i === 2 ? 'uninformative' : side === 'A' && i === 0 ? 'correct' : 'wrong';
      const base = {
        id,
        dataset: seen ? 'seen' : 'unseen',
        source: hostile(`source-${i}`),
        question,
        answers,
        answerType: hostile(`type-${i}`),
        sourceId: hostile('source-id'),
      };
      const judgeRequest = { prompt: hostile(`judge-prompt-${side}-${i}`), maxTokens: 5, stop: [hostile('stop')], temperature: 0 };
      const judgeKey = cacheKey(hostile('judge-model'), 'complete', judgeRequest);
      puts.push(
        cache.put(judgeKey, hostile('judge-model'), 'complete', judgeRequest, {
          response: { text: hostile(`judge-reply-${side}-${i}`), finishReason: 'stop' },
          promptTokens: 1,
          completionTokens: 1,
          latencyMs: 1,
        }),
      );
      const decision = {
        by: hostile(`decided-by-${side}`),
        detail: hostile(`detail-${side}-${i}`),
        replies: [hostile(`reply-${side}-${i}`)],
        callKeys: [judgeKey],
      };
      ask.push({
        itemId: id,
        seq: i,
        record: { ...base, response, rawResponse, setting, shots: [hostile('shot')], finishReason: hostile('finish'), shotsDropped: hostile('dropped') },
      });
      judge.push({
        itemId: id,
        seq: i,
        record: {
          ...base,
          response,
          rawResponse,
          setting,
          shots: [hostile('shot')],
          label,
          uninformativeType: label === 'uninformative' ? hostile(`subtype-${side}`) : null,
          judgedBy: decision.by,
          decision,
        },
      });
      if (label === 'uninformative') {
        cons.push({ itemId: id, seq: i, record: { consistency: null } });
        return;
      }
      const options = [response, hostile('option-1'), 'unsure', hostile('option-3'), hostile('option-4')];
      const mcqs = [
        { options, responseLetter: 'A', unsureLetter: 'C', raw: hostile(`mcq-raw-${side}`), choice: 'A', parse: hostile('parse'), choseResponse: true },
        { options, responseLetter: 'A', unsureLetter: 'C', raw: hostile(`mcq-raw-${side}`), choice: 'B', parse: 'letter', choseResponse: false },
      ];
      cons.push({
        itemId: id,
        seq: i,
        record: {
          consistency: 0.5,
          mode: hostile('mode'),
          distractors: { distractors: [hostile('option-1'), hostile('option-3'), hostile('option-4')], source: hostile('distractor-source'), toppedUp: 1 },
          mcqs,
        },
      });
    });
    await Promise.all(puts);
    cache.checkpoint();
    run.startStage('ask');
    run.saveRecords('ask', ask);
    run.finishStage('ask', { items: ids.length });
    run.startStage('judge');
    run.saveRecords('judge', judge);
    run.finishStage('judge', { records: ids.length });
    run.startStage('consistency');
    run.saveRecords('consistency', cons);
    run.finishStage('consistency', {});
    out.runs.push({ id: run.id, label, setting });
  }
  cache.close();
  db.close();
  return out;
}

/** Scored records of a results file, every text field hostile. */
export function hostileRecords(prefix: string, n = 4): ScoredRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const seen = i % 2 === 0;
    const label = seen ? (i === 0 ? 'correct' : 'wrong') : i === 1 ? 'uninformative' : 'wrong';
    return {
      id: hostile(`${prefix}-id-${i}`),
      dataset: seen ? 'seen' : 'unseen',
      source: hostile(`${prefix}-source`),
      answerType: hostile(`${prefix}-type`),
      question: hostile(`${prefix}-question-${i}`),
      answers: seen ? [hostile(`${prefix}-answer-${i}`)] : [],
      response: hostile(`${prefix}-response-${i}`),
      label,
      uninformativeType: label === 'uninformative' ? 'unsure' : null,
      consistency: label === 'uninformative' ? null : 0.5,
      judgedBy: hostile(`${prefix}-judged-by`),
      decision: { by: hostile(`${prefix}-judged-by`), detail: hostile(`${prefix}-detail`) },
      consistencyDetail: { note: hostile(`${prefix}-consistency-detail`) },
    } as ScoredRecord;
  });
}

/** A protocol whose choices, values and notes are hostile (a summary is a file a user may edit). */
export function hostileProtocol(): never {
  return {
    schema: 'llmkb-protocol-v1',
    entries: { [hostile('choice')]: { choice: hostile('choice-value'), status: 'approximation', note: hostile('choice-note') } },
    datasets: { [hostile('dataset-file')]: 'f'.repeat(64) },
    seed: 1,
    computeBackend: hostile('backend'),
  } as never;
}

/**
 * A results folder: a records file alone under a hostile file name; a summary and records
 * under a hostile model name and setting with a hostile protocol; CONNER results of a hostile
 * generator whose every text is hostile.
 */
export function writeHostileResults(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const recordsOnly = hostileRecords('file');
  writeFileSync(join(dir, `${hostileFileName('file-name')}.zero-shot.records.jsonl`), `${recordsOnly.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const withSummary = hostileRecords('summary');
  const summary = summarizeRun(withSummary, {
    model: hostile('summary-model'),
    setting: hostile('summary-setting'),
    resamples: 20,
    protocol: hostileProtocol(),
    modelIdentity: hostile('summary-identity'),
  });
  writeFileSync(join(dir, 'summarised.four-shot.records.jsonl'), `${withSummary.map((r) => JSON.stringify(r)).join('\n')}\n`);
  writeFileSync(join(dir, 'summarised.four-shot.summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  writeConnerResults(dir, hostileConnerRecords(), 20);
}

/** CONNER records of one hostile generator: query, knowledge, sentences, evidence, answers, scorers and notes. */
export function hostileConnerRecords() {
  return [0, 1, 2].map((i) => {
    const r = connerRecord(i, hostile('generator'), 0.7, { setting: hostile('conner-setting'), knowledge: `${hostile(`knowledge-${i}`)} Second sentence.` });
    return {
      ...r,
      id: hostile(`conner-id-${i}`),
      topic: hostile('topic'),
      query: hostile(`query-${i}`),
      goldAnswer: hostile('gold'),
      answer: hostile('answer-with'),
      answerWithoutKnowledge: hostile('answer-without'),
      sentences: r.sentences.map((s, k) => ({
        ...s,
        sentence: hostile(`sentence-${k}`),
        ...(s.evidence ? { evidence: { source: hostile('evidence-source'), text: hostile('evidence-text') } } : {}),
      })),
      helpfulness: r.helpfulness ? { ...r.helpfulness, negatives: [hostile('negative')] } : null,
      validityEvidence: { source: hostile('validity-source'), text: hostile('validity-text') },
      scorers: Object.fromEntries(Object.keys(r.scorers).map((k) => [k, hostile(`scorer-${k}`)])),
      notes: [hostile('note')],
    };
  });
}
