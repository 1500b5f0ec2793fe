/** The CLI's copies of defaults (kept for start-up time) must equal their sources. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as asking from '../src/asking/ask-questions.js';
import * as copies from '../src/cli/cli-defaults.js';
import * as consistency from '../src/consistency/consistency-stage.js';
import * as unseenqa from '../src/data/unseenqa.js';
import * as evaluation from '../src/evaluation/evaluate-model.js';
import * as lexical from '../src/judging/lexical-match.js';

describe('CLI defaults', () => {
  it('equal the library constants they copy', () => {
    assert.deepEqual(copies.PROMPT_SETTINGS, asking.PROMPT_SETTINGS);
    assert.equal(copies.ANSWER_MAX_TOKENS, asking.ANSWER_MAX_TOKENS);
    assert.equal(copies.MODE_AGREEMENT_SAMPLE, consistency.MODE_AGREEMENT_SAMPLE);
    assert.equal(copies.PAPER_CUTOFF, unseenqa.PAPER_CUTOFF);
    assert.equal(copies.DEFAULT_MODEL, evaluation.DEFAULT_MODEL);
    assert.equal(copies.LEXICAL_JUDGE_ID, lexical.LEXICAL_JUDGE_ID);
  });
});
