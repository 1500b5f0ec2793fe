import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startOpenAICompatibleServer } from '../../test/support/openai-compatible-server.js';
import { ModelExecutor } from '../executor/model-executor.js';
import { TIME_SENSITIVE_PROMPT_HEAD } from '../prompts/paper-prompts.js';
import { OpenAICompatibleProvider } from '../providers/openai-compatible-provider.js';
import { CallCache } from '../store/call-cache.js';
import { openDatabase } from '../store/database.js';
import { detectTimeSensitive, isTimeSensitiveByKeywords, parseIndexReply } from './time-sensitive.js';

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
    for (const t of ['who is the current president of france', 'What is the latest model of the iPhone currently available?', 'when was the last time the cubs won the world series', 'how many grammys has adele won', 'who is the prime minister of canada']) {
      assert.ok(isTimeSensitiveByKeywords(t), t);
    }
    for (const t of ['What is the capital of Louisiana?', 'Who won the Nobel Peace Prize in 2009?', 'who wrote the song hey jude', 'In what city was Marie Curie born?']) {
      assert.ok(!isTimeSensitiveByKeywords(t), t);
    }
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
        new OpenAICompatibleProvider({ baseURLs: [server.baseURL], model: 'judge', api: 'completions', echo: false, topLogprobs: 5, flavor: 'vllm', concurrency: 4 }),
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
