/**
 * Three models with different, deterministic behaviour, served by loopback OpenAI-compatible
 * servers (test/support/openai-compatible-server.ts) for study tests:
 *
 * - `oracle` answers seen questions with their first gold answer (read from the data set folder
 *   once it is built), says "unsure" to unseen ones, and picks its own answer among MCQ options;
 * - `guesser` answers everything with a made-up word and always picks option A;
 * - `hedger` answers half the questions (by a hash of the question) like the oracle and says
 *   "unsure" to the rest, and picks the unsure option in MCQs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultCompletion, startOpenAICompatibleServer, type ServerScript, type TestServer } from './openai-compatible-server.js';

export type Behaviour = 'oracle' | 'guesser' | 'hedger';

function hash(text: string): number {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h;
}

/** The question and, for an MCQ, its options, from the last QUESTION block of a prompt. */
function lastQuestion(prompt: string): { question: string; options: string[] } {
  const at = prompt.lastIndexOf('QUESTION: ');
  const block = prompt.slice(at + 'QUESTION: '.length).replace(/\nANSWER:\s*$/, '');
  const lines = block.split('\n');
  const options: string[] = [];
  const questionLines: string[] = [];
  for (const line of lines) {
    const m = /^([A-E])\. (.*)$/.exec(line);
    if (m) options.push(m[2]!);
    else if (options.length === 0) questionLines.push(line);
  }
  return { question: questionLines.join('\n'), options };
}

export function scriptFor(behaviour: Behaviour, dataDir: string): ServerScript {
  let gold: Map<string, string> | undefined;
  const answerOf = (question: string): string | undefined => {
    if (!gold) {
      const file = join(dataDir, 'seenqa.jsonl');
      if (!existsSync(file)) return undefined;
      gold = new Map();
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const item = JSON.parse(line) as { question: string; answers: string[] };
        gold.set(item.question, item.answers[0]!);
      }
    }
    return gold.get(question);
  };
  const own = (question: string): string => {
    if (behaviour === 'guesser') return defaultCompletion(question).trim();
    if (behaviour === 'hedger' && hash(question) % 2 === 1) return 'unsure';
    return answerOf(question) ?? 'unsure';
  };
  const complete = (prompt: string): string => {
    const { question, options } = lastQuestion(prompt);
    if (options.length === 0) return ` ${own(question)}\nQUESTION: next`;
    if (behaviour === 'guesser') return ' A';
    const want = behaviour === 'hedger' ? 'unsure' : own(question);
    const i = options.findIndex((o) => o.toLowerCase() === want.toLowerCase());
    return ` ${'ABCDE'[i === -1 ? options.length - 1 : i]}`;
  };
  // Logprobs answer mode: the letter it would generate, most likely.
  const nextToken = (prompt: string): Record<string, number> => {
    const letter = complete(prompt).trim().slice(0, 1);
    const dist: Record<string, number> = {};
    for (const l of 'ABCDE') dist[l] = dist[` ${l}`] = 0.01;
    dist[letter] = 0.5;
    dist[` ${letter}`] = 0.4;
    return dist;
  };
  return { complete, nextToken, chat: (messages) => complete(messages[messages.length - 1]?.content ?? '') };
}

export async function startScriptedModel(behaviour: Behaviour, dataDir: string, extra: Partial<ServerScript> = {}): Promise<TestServer> {
  return startOpenAICompatibleServer({ ...scriptFor(behaviour, dataDir), ...extra });
}
