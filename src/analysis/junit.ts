/**
 * `llmkb eval --fail-under … --junit FILE`: the threshold checks as JUnit XML, the format CI
 * systems (GitLab, Jenkins, GitHub test reporters) show as test results. One test case per
 * (run, threshold): a run is one model and prompt setting; a metric below its threshold, or
 * undefined, is a failure whose message carries the metric's value.
 */
import { meetsThreshold, type Threshold } from './thresholds.js';

export interface JunitRun {
  model: string;
  setting: string;
  runId?: string | undefined;
  approximate?: boolean | undefined;
  metrics: Record<string, number | null | undefined>;
}

/** Text for XML content and attribute values: the five special characters escaped, and the characters XML 1.0 cannot hold at all dropped. */
export function xmlEscape(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function junitReport(runs: readonly JunitRun[], thresholds: readonly Threshold[], options: { timestamp?: string } = {}): string {
  const cases: string[] = [];
  let failures = 0;
  for (const run of runs) {
    for (const t of thresholds) {
      const value = run.metrics[t.metric];
      const passed = meetsThreshold(value, t.value);
      const defined = typeof value === 'number' && Number.isFinite(value);
      const shown = defined ? value.toFixed(4) : 'undefined';
      const where = `${run.model}, ${run.setting}${run.runId ? `, run ${run.runId}` : ''}${run.approximate ? ', approximate labels (no judge LLM)' : ''}`;
      const attrs = `classname="${xmlEscape(`llmkb.${run.model.replace(/\./g, '_')}.${run.setting}`)}" name="${xmlEscape(`${t.metric} >= ${t.value}`)}" time="0"`;
      if (passed) {
        cases.push(`    <testcase ${attrs}>\n      <system-out>${xmlEscape(`${t.metric} = ${shown} (${where})`)}</system-out>\n    </testcase>`);
      } else {
        failures += 1;
        const message = defined ? `${t.metric} = ${shown} < ${t.value}` : `${t.metric} is undefined (no responses to compute it from), threshold ${t.value}`;
        cases.push(
          `    <testcase ${attrs}>\n      <failure message="${xmlEscape(message)}" type="threshold">${xmlEscape(`${message} (${where})`)}</failure>\n    </testcase>`,
        );
      }
    }
  }
  const timestamp = options.timestamp ?? new Date().toISOString().slice(0, 19);
  const suite = `tests="${cases.length}" failures="${failures}" errors="0" skipped="0"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="llmkb eval --fail-under" ${suite}>`,
    `  <testsuite name="llmkb --fail-under" ${suite} timestamp="${xmlEscape(timestamp)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
