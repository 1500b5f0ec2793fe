import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InputFileError } from '../errors.js';
import { checkSummary, formatMetric, headlineDefs, summaryVersion } from './method-summary.js';
import { getMethod } from './registry.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'summary-v1');
const read = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

describe('summary schema v2', () => {
  it('migrates a real v1 summary into the v2 summary the current code writes for the same run, byte for byte', () => {
    const v1 = JSON.parse(read('reliability.v1.summary.json')) as Record<string, unknown>;
    assert.equal(summaryVersion(v1), 1);
    const migrated = getMethod('reliability').migrateSummary!(v1)!;
    assert.equal(`${JSON.stringify(migrated, null, 2)}\n`, read('reliability.v2.summary.json'));
    const summary = checkSummary(migrated, 'x.json', 'hint');
    assert.deepEqual(summary.method, { id: 'reliability', version: '1' });
    assert.deepEqual(summary.metricDefs.map((d) => d.id), Object.keys(summary.metrics));
    assert.deepEqual(headlineDefs(summary.metricDefs).map((d) => d.id), ['NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR']);
  });

  it('refuses a v2 summary whose metricDefs name a metric it has no value for, naming the field', () => {
    const v2 = JSON.parse(read('reliability.v2.summary.json')) as { metrics: Record<string, unknown> };
    delete v2.metrics.NCCR;
    assert.throws(() => checkSummary(v2, 'bad.json', 'hint'), (e: unknown) => e instanceof InputFileError && /metrics\.NCCR/.test(e.message) && /no value/.test(e.message));
  });

  it('formats values as their definition says; undefined is "-", never 0', () => {
    assert.equal(formatMetric({ format: 'percent' }, 0.12345), '12.35');
    assert.equal(formatMetric({ format: 'number' }, 1.5), '1.500');
    assert.equal(formatMetric({ format: 'percent' }, null), '-');
  });
});
