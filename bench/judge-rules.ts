/**
 * Judging throughput without an LLM: uninformative rules + SQuAD exact match over 100,000
 * responses (issue #4 target: under 5 s on this machine). Responses are the labelled set's
 * responses (every kind: empty, refusals, loops, real answers) varied with a counter so no two
 * strings are identical, paired with seen questions that have 1-14 aliases.
 *
 *   npm run bench:judge -- [count=100000]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { judgeByRules, type ResponseRecord } from '../src/judging/judge-response.js';

const count = Number(process.argv[2] ?? 100_000);
const cases = readFileSync(join(import.meta.dirname, '..', 'src', 'judging', 'fixtures', 'uninformative-labelled.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { question: string; response: string });
const aliases = ['Paris', 'Jane Austen', 'William Shakespeare', 'Helicopter', 'Helicopters', 'Copter', 'Civilian helicopter', 'Pescara (helicopter)', 'Cargo helicopter', 'Helecopter', 'Helichopper', 'Helocopter', 'Anatomy of a helicopter', 'Helicoptor'];

const records: ResponseRecord[] = Array.from({ length: count }, (_, i) => {
  const c = cases[i % cases.length]!;
  const unseen = i % 2 === 1;
  return {
    id: `b${i}`,
    dataset: unseen ? 'unseen' : 'seen',
    source: unseen ? 'T13' : 'triviaqa',
    question: c.question,
    answers: unseen ? [] : aliases.slice(0, 1 + (i % aliases.length)),
    response: i % 7 === 0 ? c.response : `${c.response} ${i % 3 === 0 ? '' : String(i)}`.trim(),
  };
});

const labels: Record<string, number> = {};
const started = performance.now();
let undecided = 0;
for (const r of records) {
  const judged = judgeByRules(r);
  if (!judged) {
    undecided++;
    continue;
  }
  labels[judged.judgedBy] = (labels[judged.judgedBy] ?? 0) + 1;
}
const seconds = (performance.now() - started) / 1000;
console.log(`judged ${count} responses with rules + exact match in ${seconds.toFixed(2)} s: ${(count / seconds).toFixed(0)} responses/s (target: ${count} in < 5 s)`);
console.log(`left for the judge LLM (seen, informative, not an exact match): ${undecided}`);
console.log(Object.entries(labels).sort((a, b) => b[1] - a[1]).map(([k, v]) => `  ${k}: ${v}`).join('\n'));
