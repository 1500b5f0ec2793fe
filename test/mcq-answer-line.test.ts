/**
 * Generate mode stops an MCQ answer at the end of its answer line (issue 40, item 7): the
 * choice is read from that line, and the tokens a model writes on after it are not generated.
 * A reply that begins with a line break is asked again up to the next question.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ModelExecutor } from '../src/executor/model-executor.js';
import { answerMcq, buildMcqs, mcqPrompt } from '../src/methods/reliability/consistency/mcq.js';
import { buildProtocol } from '../src/methods/reliability/protocol.js';
import { MockModel } from '../src/providers/mock/mock-model.js';

const mcq = buildMcqs('q1', 'William Shakespeare', ['Christopher Marlowe', 'Ben Jonson', 'John Milton'], 1, 42)[0]!;
const prompt = mcqPrompt('Who wrote Hamlet?', mcq);

async function answer(reply: string) {
  const model = new MockModel({ replies: () => ({ reply }), identity: `answer-line-${reply}` });
  const executor = new ModelExecutor(model, { cache: null });
  const r = await answerMcq(executor, prompt, mcq, 'generate');
  return { ...r, calls: model.calls.length };
}

describe('generate mode: an MCQ answer ends with its line', () => {
  it('a letter and more lines: the line is read, the rest never generated (once counted as naming another letter)', async () => {
    const r = await answer(` ${mcq.responseLetter}\nA. text the model went on with\nB. and on\nQUESTION: next`);
    assert.equal(r.answered.raw, ` ${mcq.responseLetter}`);
    assert.deepEqual([r.answered.choice, r.answered.parse, r.answered.choseResponse], [mcq.responseLetter, 'letter', true]);
    assert.equal(r.calls, 1);
  });

  it('a reply that begins with a line break is asked again up to the next question: its answer is read as before', async () => {
    const r = await answer(`\n${mcq.responseLetter}\nQUESTION: next`);
    assert.equal(r.calls, 2);
    assert.equal(r.answered.raw, `\n${mcq.responseLetter}`);
    assert.deepEqual([r.answered.choice, r.answered.parse], [mcq.responseLetter, 'letter']);
  });

  it('the protocol records the stop rule', () => {
    const p = buildProtocol({
      setting: 'zero-shot',
      lexicalJudge: { id: 'lexical-v2', note: '' },
      shotSelector: 'bm25-v1',
      mode: 'generate',
      questions: { seen: 1, unseen: 1 },
      mcqs: 20,
      maxTokens: 100,
      computeBackend: 'cpu',
      datasets: {},
      seed: 1,
    });
    assert.match(p.entries.mcqAnswerMode.note!, /stopped at the end of the answer line \(answer-line-v1/);
  });
});
