import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcqCounts } from './reliability-view.js';

describe('the MCQ counts of a stored consistency record', () => {
  it('counts MCQs and invalid answers in SQLite JSON text, whatever the options and raw answers say', () => {
    const mcqs = [
      { options: ['"parse":"invalid"', 'B'], raw: '"parse":"invalid" Z', choice: null, parse: 'invalid' },
      { options: ['A', 'B'], raw: ' A', choice: 'A', parse: 'letter' },
      { options: ['A', 'B'], raw: 'b', choice: 'B', parse: 'option-text' },
      { options: ['A', 'B'], raw: '?', choice: null, parse: 'invalid' },
    ];
    assert.deepEqual(mcqCounts(JSON.stringify(mcqs)), { mcqs: 4, invalid: 2 });
    assert.deepEqual(mcqCounts('[]'), { mcqs: 0, invalid: 0 });
  });
});
