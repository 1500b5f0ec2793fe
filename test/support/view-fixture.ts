/**
 * Runs for `llmkb view` tests and its bench, written through the real run store and call cache
 * (the same tables `llmkb eval` writes): ask, judge and consistency records of synthetic items,
 * judge exchanges in the call cache, and a results folder with a records file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CallCache } from '../../src/store/call-cache.js';
import { cacheKey } from '../../src/store/call-key.js';
import { openDatabase } from '../../src/store/database.js';
import { RunStore } from '../../src/store/run-store.js';
import { summarizeRun } from '../../src/methods/reliability/metrics/summarize-run.js';
import { judgePrompt, qaPrompt } from '../../src/methods/reliability/prompts/paper-prompts.js';

export const HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';

const SOURCES = ['nq', 'triviaqa', 'popqa'];
const TYPES = ['person', 'time', 'location', 'number', 'other'];

/** A deterministic small generator (no Math.random: the fixture is the same every time). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return (s >>> 8) / 0x1000000;
  };
}

export interface FixtureRun {
  id: string;
  label: string;
  setting: string;
}

export async function writeFixtureStore(
  storePath: string,
  options: {
    runs: Array<{ label: string; setting: string; seed: number; correctShare: number }>;
    items: number;
    hostileItem?: boolean;
    mcqs?: number;
    distractorText?: string;
  },
): Promise<FixtureRun[]> {
  const db = openDatabase(storePath);
  const store = new RunStore(db);
  const cache = new CallCache(db);
  const out: FixtureRun[] = [];
  const model = 'fixture:model-identity';
  for (const spec of options.runs) {
    const run = store.open({
      model: `${model}-${spec.label}`,
      dataset: 'sha256:fixture',
      setting: spec.setting,
      seed: 42,
      label: spec.label,
      method: 'reliability',
      params: { maxTokens: 100 },
    });
    const random = rng(spec.seed);
    const ask: Array<{ itemId: string; seq: number; record: unknown }> = [];
    const judge: Array<{ itemId: string; seq: number; record: unknown }> = [];
    const cons: Array<{ itemId: string; seq: number; record: unknown }> = [];
    const puts: Array<Promise<void>> = [];
    for (let i = 0; i < options.items; i++) {
      const seen = i % 2 === 0;
      const id = seen ? `seen-${i}` : `unseen-${i}`;
      const source = seen ? SOURCES[i % 3]! : `T${(i % 20) + 1}`;
      const question = seen
        ? `Who wrote book number ${i} about ${['rivers', 'kings', 'stars'][i % 3]}?`
        : `What medal will athlete ${i} win at the 2032 games?`;
      const answers = seen ? [`Author ${i}`] : [];
      const r = random();
      let response: string;
      let label: 'correct' | 'wrong' | 'uninformative';
      let uninformativeType: 'none' | 'unsure' | 'repetition' | null = null;
      if (options.hostileItem && i === 1) {
        response = HOSTILE;
        label = 'wrong';
      } else if (seen && r < spec.correctShare) {
        response = `Author ${i}`;
        label = 'correct';
      } else if (r < spec.correctShare + 0.25) {
        response = 'unsure';
        label = 'uninformative';
        uninformativeType = 'unsure';
      } else if (r < spec.correctShare + 0.3) {
        response = 'the the the the the the';
        label = 'uninformative';
        uninformativeType = 'repetition';
      } else {
        response = seen ? `Writer ${i + 7}` : 'gold';
        label = 'wrong';
      }
      const base = { id, dataset: seen ? 'seen' : 'unseen', source, question, answers, answerType: TYPES[i % 5], sourceId: `fixture:${i}` };
      const rawResponse = `${response}\nQUESTION: and another question`;
      ask.push({ itemId: id, seq: i, record: { ...base, response, rawResponse, setting: spec.setting, shots: [], finishReason: 'stop' } });
      const decision: Record<string, unknown> =
        seen && label !== 'uninformative'
          ? { by: label === 'correct' ? 'exact-match' : 'llm:fixture-judge' }
          : { by: label === 'uninformative' ? `rule:${uninformativeType}-phrase` : 'rule:unseen-informative' };
      if (decision.by === 'llm:fixture-judge') {
        // The judge's exchange is in the call cache; the record keeps its key.
        const request = { prompt: judgePrompt(question, answers, response), maxTokens: 5, stop: [], temperature: 0 };
        const key = cacheKey('fixture-judge', 'complete', request);
        puts.push(
          cache.put(key, 'fixture-judge', 'complete', request, {
            response: { text: 'no', finishReason: 'stop' },
            promptTokens: 100,
            completionTokens: 1,
            latencyMs: 1,
          }),
        );
        decision.replies = ['no'];
        decision.callKeys = [key];
      }
      judge.push({
        itemId: id,
        seq: i,
        record: { ...base, response, rawResponse, setting: spec.setting, shots: [], label, uninformativeType, judgedBy: decision.by, decision },
      });
      if (i < 3 && spec === options.runs[0]) {
        // The QA call itself, so the item page can show the exact exchange.
        const request = { prompt: qaPrompt(question), maxTokens: 100, stop: [], temperature: 0 };
        puts.push(
          cache.put(cacheKey(`${model}-${spec.label}`, 'complete', request), `${model}-${spec.label}`, 'complete', request, {
            response: { text: rawResponse, finishReason: 'stop' },
            promptTokens: 50,
            completionTokens: 8,
            latencyMs: 1,
          }),
        );
      }
      if (label !== 'uninformative') {
        const d = options.distractorText ?? '';
        const options5 = [response, `Distractor ${i}a${d}`, 'unsure', `Distractor ${i}b${d}`, `Distractor ${i}c${d}`];
        const mcqs = Array.from({ length: options.mcqs ?? 3 }, (_, k) => {
          const chosen = k < ((i >> 1) + spec.seed) % 4 ? 'A' : ['B', 'C'][(i + k) % 2]!;
          const lps = { A: Math.log(0.6), B: Math.log(0.25), C: Math.log(0.1), D: Math.log(0.03), E: Math.log(0.02) };
          return {
            options: options5,
            responseLetter: 'A',
            unsureLetter: 'C',
            raw: JSON.stringify(lps),
            choice: chosen,
            parse: 'logprobs',
            choseResponse: chosen === 'A',
          };
        });
        const consistency = mcqs.filter((m) => m.choseResponse).length / mcqs.length;
        cons.push({
          itemId: id,
          seq: i,
          record: {
            consistency,
            mode: 'logprobs',
            distractors: { distractors: [`Distractor ${i}a${d}`, `Distractor ${i}b${d}`, `Distractor ${i}c${d}`], source: 'llm', toppedUp: 0 },
            mcqs,
          },
        });
      } else cons.push({ itemId: id, seq: i, record: { consistency: null } });
    }
    await Promise.all(puts);
    // As a finished evaluation does: its journal of calls moves into the store (see CallCache).
    cache.checkpoint();
    run.startStage('ask');
    run.saveRecords('ask', ask);
    run.finishStage('ask', { items: options.items });
    run.startStage('judge');
    run.saveRecords('judge', judge);
    run.finishStage('judge', { records: options.items });
    run.startStage('consistency');
    run.saveRecords('consistency', cons);
    run.finishStage('consistency', {});
    out.push({ id: run.id, label: spec.label, setting: spec.setting });
  }
  cache.close();
  db.close();
  return out;
}

/** A results folder as `llmkb eval` writes it: a records file and its summary. */
export function writeFixtureResults(dir: string, label: string, setting: string, items: number): void {
  mkdirSync(dir, { recursive: true });
  const random = rng(7);
  const records = Array.from({ length: items }, (_, i) => {
    const seen = i % 2 === 0;
    const r = random();
    const label = seen ? (r < 0.4 ? 'correct' : r < 0.8 ? 'wrong' : 'uninformative') : r < 0.5 ? 'uninformative' : 'wrong';
    return {
      id: `file-${i}`,
      dataset: seen ? 'seen' : 'unseen',
      source: seen ? SOURCES[i % 3] : `T${(i % 20) + 1}`,
      question: `File question ${i} about ${seen ? 'history' : 'the future'}`,
      answers: seen ? [`A${i}`] : [],
      answerType: TYPES[i % 5],
      response: label === 'uninformative' ? 'unsure' : `Answer ${i}`,
      rawResponse: `Answer ${i}\nQUESTION:`,
      setting,
      shots: [],
      label,
      uninformativeType: label === 'uninformative' ? 'unsure' : null,
      judgedBy: 'lexical',
      decision: { by: 'lexical', detail: 'lexical-v2: no rule matched' },
      approximate: true,
      consistency: label === 'uninformative' ? null : Math.round(random() * 5) / 5,
      consistencyDetail: { mcqs: 5, choseResponse: 1, choseUnsure: 0, invalid: 0, distractorSource: 'pool', toppedUp: 0, mode: 'generate' },
    };
  });
  writeFileSync(join(dir, `${label}.${setting}.records.jsonl`), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  writeFileSync(
    join(dir, `${label}.${setting}.summary.json`),
    `${JSON.stringify(summarizeRun(records as never, { model: label, setting, resamples: 200 }), null, 2)}\n`,
  );
}
