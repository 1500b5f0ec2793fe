import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InputFileError } from '../errors.js';
import { checkSummary, formatMetric, headlineDefs } from './method-summary.js';

const FIXTURE = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'reliability.summary.json');

describe('summary schema v2', () => {
  it('reads a real summary: its metric definitions name its metrics, the headline ones first', () => {
    const summary = checkSummary(JSON.parse(readFileSync(FIXTURE, 'utf8')), 'x.json', 'hint');
    assert.deepEqual(
      summary.metricDefs.map((d) => d.id),
      Object.keys(summary.metrics),
    );
    assert.deepEqual(
      headlineDefs(summary.metricDefs).map((d) => d.id),
      ['NCR', 'UR', 'C_correct', 'C_wrong', 'NCCR', 'IUR'],
    );
  });

  it('refuses a v2 summary whose metricDefs name a metric it has no value for, naming the field', () => {
    const v2 = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { metrics: Record<string, unknown> };
    delete v2.metrics.NCCR;
    assert.throws(
      () => checkSummary(v2, 'bad.json', 'hint'),
      (e: unknown) => e instanceof InputFileError && /metrics\.NCCR/.test(e.message) && /no value/.test(e.message),
    );
  });

  it('formats values as their definition says; undefined is "-", never 0', () => {
    assert.equal(formatMetric({ format: 'percent' }, 0.12345), '12.35');
    assert.equal(formatMetric({ format: 'number' }, 1.5), '1.500');
    assert.equal(formatMetric({ format: 'percent' }, null), '-');
  });
});
