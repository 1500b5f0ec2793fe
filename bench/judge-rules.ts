/**
 * Judging throughput without an LLM: uninformative rules + SQuAD exact match over 100,000
 * responses (issue #4 target: under 5 s on this machine). Responses are the labelled set's
 * responses (every kind: empty, refusals, loops, real answers) varied with a counter so no two
 * strings are identical, paired with seen questions that have 1-14 aliases.
 *
 *   npm run bench:judge -- [count=100000]
 *   npm run bench:judge -- --evouna DIR     # each lexical rule's gain in agreement with EVOUNA's human labels
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agreementReport, readEvouna } from '../src/methods/reliability/judging/judge-agreement.js';
import { judgeByRules, type ResponseRecord } from '../src/methods/reliability/judging/judge-response.js';
import { LEXICAL_RULES, lexicalMatch, type LexicalRule } from '../src/methods/reliability/judging/lexical-match.js';

const evounaAt = process.argv.indexOf('--evouna');
if (evounaAt >= 0) {
  // Rules added one at a time, in the order they are tried, starting from lexical-v1's two
  // (containment, token F1): the gain of each in agreement with the human labels, on NQ (where
  // the rules were developed), on TriviaQA (held out) and overall, and the smallest change for
  // any of the five systems.
  const rows = readEvouna(process.argv[evounaAt + 1] ?? join(process.env.LLMKB_DATA_DIR ?? '.', 'evouna'));
  const byRules = rows.map((r) =>
    judgeByRules({ id: r.id, dataset: 'seen', source: r.source, question: r.question, answers: r.answers, response: r.response }),
  );
  const order: LexicalRule[] = ['containment', 'token-f1', ...LEXICAL_RULES.filter((r) => r !== 'containment' && r !== 'token-f1')];
  let previous: ReturnType<typeof agreementReport> | undefined;
  for (let i = 1; i <= order.length; i++) {
    const on = new Set(order.slice(0, i));
    const without = LEXICAL_RULES.filter((r) => !on.has(r));
    const labelled = rows.map((r, k) => ({
      ...r,
      label: byRules[k]?.label ?? (lexicalMatch(r.response, r.answers, { question: r.question, without }).correct ? ('correct' as const) : ('wrong' as const)),
    }));
    const report = agreementReport(labelled);
    const fmt = (x: number, p?: number): string => `${x.toFixed(4)}${p === undefined ? '' : ` (${x - p >= 0 ? '+' : ''}${(100 * (x - p)).toFixed(2)})`}`;
    const minSystem = previous ? Math.min(...Object.entries(report.bySystem).map(([k, s]) => s.agreement - previous!.bySystem[k]!.agreement)) : undefined;
    console.log(
      `${(i <= 2 ? `lexical-v1 ${order.slice(0, i).join(' + ')}` : `+ ${order[i - 1]}`).padEnd(36)} NQ ${fmt(report.byDataset.NQ!.agreement, previous?.byDataset.NQ?.agreement)}  TQ ${fmt(report.byDataset.TQ!.agreement, previous?.byDataset.TQ?.agreement)}  all ${fmt(report.overall.agreement, previous?.overall.agreement)} kappa ${report.overall.kappa!.toFixed(3)}${minSystem === undefined ? '' : `  worst system ${minSystem >= 0 ? '+' : ''}${(100 * minSystem).toFixed(2)}`}`,
    );
    previous = report;
  }
  process.exit(0);
}

const count = Number(process.argv[2] ?? 100_000);
const cases = readFileSync(join(import.meta.dirname, '..', 'src', 'methods', 'reliability', 'judging', 'fixtures', 'uninformative-labelled.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { question: string; response: string });
const aliases = [
  'Paris',
  'Jane Austen',
  'William Shakespeare',
  'Helicopter',
  'Helicopters',
  'Copter',
  'Civilian helicopter',
  'Pescara (helicopter)',
  'Cargo helicopter',
  'Helecopter',
  'Helichopper',
  'Helocopter',
  'Anatomy of a helicopter',
  'Helicoptor',
];

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
console.log(
  `judged ${count} responses with rules + exact match in ${seconds.toFixed(2)} s: ${(count / seconds).toFixed(0)} responses/s (target: ${count} in < 5 s)`,
);
console.log(`left for the judge LLM (seen, informative, not an exact match): ${undecided}`);
console.log(
  Object.entries(labels)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n'),
);
