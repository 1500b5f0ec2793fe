import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildProtocol, departures, protocolDifferences, type ProtocolInputs } from './protocol.js';

const paperRun: ProtocolInputs = {
  setting: 'four-shot',
  judge: 'openai:gpt-4o',
  lexicalJudge: { id: 'lexical-v2', note: 'labels agree with humans 0.904 on EVOUNA' },
  timeFilter: { method: 'llm', model: 'openai:gpt-4o' },
  distractor: 'openai:gpt-4o-mini',
  shotSelector: 'embedding:openai:text-embedding-3-small',
  mode: 'generate',
  questions: { seen: 3000, unseen: 3000 },
  mcqs: 20,
  maxTokens: 100,
  sequences: 1,
  computeBackend: 'cpu',
  datasets: { questions: 'sha256:abc' },
  seed: 42,
};

describe('protocol block', () => {
  it("has no departure when every choice is the paper's", () => {
    assert.deepEqual(departures(buildProtocol(paperRun)), []);
  });

  it('names every approximation and the nondeterministic batching', () => {
    const p = buildProtocol({
      ...paperRun,
      judge: undefined,
      timeFilter: { method: 'keyword-rule-v2', note: 'precision 0.9' },
      distractor: undefined,
      shotSelector: 'bm25-v1',
      mode: 'logprobs',
      quick: { seen: 50, unseen: 50 },
      questions: { seen: 50, unseen: 50 },
      mcqs: 5,
      maxTokens: 12,
      sequences: 4,
    });
    const got = Object.fromEntries(departures(p).map((d) => [d.choice, `${d.entry.choice}/${d.entry.status}`]));
    assert.deepEqual(got, {
      judge: 'lexical-v2/approximation',
      timeFilter: 'keyword-rule-v2/approximation',
      distractors: 'answer-pool/approximation',
      shotSelector: 'bm25-v1/approximation',
      mcqAnswerMode: 'logprobs/approximation',
      questions: 'quick: 50 seen + 50 unseen/approximation',
      mcqsPerResponse: '5/approximation',
      maxTokens: '12 new tokens/approximation',
      batching: '4 parallel sequences/nondeterministic',
    });
    assert.equal(p.entries.judge.note, 'labels agree with humans 0.904 on EVOUNA');
  });

  it('says what a distractor from the answer pool can be, with and without a distractor LLM', () => {
    const pool = buildProtocol({ ...paperRun, distractor: undefined }).entries.distractors.note!;
    assert.match(pool, /another question's accepted answer or another response/);
    assert.match(pool, /never the response itself nor any of the item's own accepted answers/);
    assert.match(buildProtocol(paperRun).entries.distractors.note!, /topped up from the answer pool \(.*never .*the item's own accepted answers/);
  });

  it('zero-shot has no shots to select, whatever the selector', () => {
    assert.equal(buildProtocol({ ...paperRun, setting: 'zero-shot', shotSelector: 'bm25-v1' }).entries.shotSelector.status, 'paper');
  });

  it('says what differs between runs put side by side', () => {
    const a = buildProtocol(paperRun);
    const b = buildProtocol({ ...paperRun, judge: undefined, seed: 7 });
    const c = buildProtocol({ ...paperRun, setting: 'zero-shot' });
    assert.deepEqual(
      protocolDifferences([
        { name: 'A', protocol: a },
        { name: 'C', protocol: c },
      ]),
      [],
    );
    const diff = protocolDifferences([
      { name: 'A', protocol: a },
      { name: 'B', protocol: b },
      { name: 'old', protocol: undefined },
    ]);
    assert.equal(diff.length, 3, diff.join('\n'));
    assert.match(diff[0]!, /no protocol block in old/);
    assert.match(diff[1]!, /^judge \(correct vs wrong\): llm:openai:gpt-4o \(A\) vs lexical-v2 \(B\)$/);
    assert.match(diff[2]!, /^seed: 42 vs 7$/);
  });
});
