import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer } from '#test-support/openai-compatible-server.js';
import { ModelExecutor } from '../../../executor/model-executor.js';
import { TIME_SENSITIVE_PROMPT_HEAD } from '../prompts/paper-prompts.js';
import { OpenAICompatibleModel } from '../../../providers/openai-compatible/openai-compatible-model.js';
import { CallCache } from '../../../store/call-cache.js';
import { openDatabase } from '../../../store/database.js';
import { readFileSync } from 'node:fs';
import { detectTimeSensitive, isTimeSensitiveByKeywords, KEYWORD_RULE_ID, KEYWORD_RULE_QUALITY, parseIndexReply } from './time-sensitive.js';

interface Labelled {
  set: 'design' | 'holdout';
  source: 'nq' | 'triviaqa';
  timeSensitive: boolean;
  question: string;
}
const labelled = JSON.parse(readFileSync(new URL('./fixtures/time-sensitive-labels.json', import.meta.url), 'utf8')) as Labelled[];

function quality(items: readonly Labelled[]) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const misses: string[] = [];
  for (const item of items) {
    const flagged = isTimeSensitiveByKeywords(item.question);
    if (flagged && item.timeSensitive) tp += 1;
    else if (flagged) (fp += 1), misses.push(`false positive: ${item.question}`);
    else if (item.timeSensitive) (fn += 1), misses.push(`false negative: ${item.question}`);
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { precision: round(tp / (tp + fp)), recall: round(tp / (tp + fn)), misses };
}

describe('time-sensitive questions', () => {
  it('parses the index reply strictly', () => {
    assert.deepEqual([...parseIndexReply('1, 4', 5)!], [0, 3]);
    assert.deepEqual([...parseIndexReply(' 2,3\n\nHere is', 5)!], [1, 2]);
    assert.deepEqual([...parseIndexReply('Index: 5', 5)!], [4]);
    assert.deepEqual([...parseIndexReply('None', 5)!], []);
    assert.deepEqual([...parseIndexReply('', 5)!], []);
    assert.deepEqual([...parseIndexReply('3, 9', 5)!], [2], 'indices outside the batch are ignored');
    assert.equal(parseIndexReply('The questions about the iPhone change.', 5), undefined);
  });

  it('keyword rule flags "now"-bound wording and keeps fixed facts', () => {
    for (const t of [
      'who is the current president of france',
      'What is the latest model of the iPhone currently available?',
      'when was the last time the cubs won the world series',
      'how many grammys has adele won',
      'who is the prime minister of canada',
    ]) {
      assert.ok(isTimeSensitiveByKeywords(t), t);
    }
    for (const t of [
      'What is the capital of Louisiana?',
      'Who won the Nobel Peace Prize in 2009?',
      'who wrote the song hey jude',
      'In what city was Marie Curie born?',
    ]) {
      assert.ok(!isTimeSensitiveByKeywords(t), t);
    }
  });

  it('keyword rule v2 leaves keywords inside titles and closed counts alone', () => {
    assert.equal(KEYWORD_RULE_ID, 'keyword-rule-v2');
    for (const t of [
      'star trek the next generation season 3 episode 24',
      'who sang right here right now',
      'who sings the song i feel it still',
      'who starred in the movie the day the earth stood still',
      'how many nfl teams has st louis had',
      'how many times has lake placid hosted the winter olympics',
      'who has the most goals in soccer 2018',
      "who won season 8 of america's next top model",
    ]) {
      assert.ok(!isTimeSensitiveByKeywords(t), t);
    }
    for (const t of [
      'who does dwyane wade play for right now',
      'when does the next season of wynonna earp start',
      'how many champions league trophies does arsenal have',
      'how many times have real madrid won the champions league in a row',
      'who is the coach for the ottawa senators',
      'what is the population of keystone heights florida',
      'who has the most super bowls in nfl history',
    ]) {
      assert.ok(isTimeSensitiveByKeywords(t), t);
    }
  });

  it('keyword rule: precision and recall on the hand-labelled NQ/TriviaQA questions are the ones the card quotes', () => {
    assert.ok(labelled.length >= 150, `${labelled.length} labelled questions`);
    assert.equal(new Set(labelled.map((l) => l.question)).size, labelled.length, 'no question twice');
    assert.equal(labelled.length, KEYWORD_RULE_QUALITY.questions);
    assert.equal(labelled.filter((l) => l.timeSensitive).length, KEYWORD_RULE_QUALITY.timeSensitive);
    const all = quality(labelled);
    for (const set of ['design', 'holdout'] as const) {
      const q = quality(labelled.filter((l) => l.set === set));
      process.stdout.write(`keyword rule on the ${set} labels: precision ${q.precision}, recall ${q.recall}\n`);
    }
    process.stdout.write(all.misses.map((m) => `  ${m}\n`).join(''));
    assert.equal(all.precision, KEYWORD_RULE_QUALITY.precision);
    assert.equal(all.recall, KEYWORD_RULE_QUALITY.recall);
  });

  it('asks the LLM with the Table 5 prompt in numbered batches and removes what it flags', async () => {
    const server = await startOpenAICompatibleServer({
      complete: (prompt) => {
        const list = prompt.slice(prompt.lastIndexOf('Here is the list of questions:'));
        const flagged = [...list.matchAll(/^(\d+)\. .*(current|latest)/gm)].map((m) => m[1]);
        return flagged.length ? ` ${flagged.join(', ')}` : ' None';
      },
    });
    try {
      const executor = new ModelExecutor(
        new OpenAICompatibleModel({
          baseURLs: [server.baseURL],
          model: 'judge',
          api: 'completions',
          echo: false,
          topLogprobs: 5,
          flavor: 'vllm',
          concurrency: 4,
        }),
        { cache: new CallCache(openDatabase(':memory:')) },
      );
      const questions = ['who is the current king of spain', 'capital of peru', 'latest harry potter film', 'who painted guernica', 'current ceo of apple'];
      const result = await detectTimeSensitive(questions, { executor, batchSize: 2 });
      assert.deepEqual([...result.flagged].sort(), [0, 2, 4]);
      assert.equal(result.calls, 3);
      assert.equal(result.method.kind, 'llm');
      const prompt = String(server.requests[0]!.body.prompt);
      assert.ok(prompt.startsWith(TIME_SENSITIVE_PROMPT_HEAD));
      assert.ok(prompt.endsWith('1. who is the current king of spain\n2. capital of peru\n\nIndex:\n\n'));
    } finally {
      await server.close();
    }
  });
});
