/**
 * The paper-scale benches' question set and loopback server (bench/paper-scale.ts,
 * bench/eval-memory.ts): half seen questions (answers accepted, see paper-scale-answers.ts), half
 * unseen, words from a fixed vocabulary, seeded; and the OpenAI-compatible server of
 * paper-scale-server.ts started as a child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { QAItem } from '../../src/methods/reliability/data/qa-item.js';
import { SeededRandom } from '../../src/sampling/seeded-random.js';
import { rightAnswer } from './paper-scale-answers.js';

export interface PaperScaleQuestions {
  seen: QAItem[];
  unseen: QAItem[];
  /** The few-shot repositories. */
  rSeen: QAItem[];
  rUnseen: QAItem[];
  /** seen then unseen. */
  items: QAItem[];
}

const STEMS = ['who wrote', 'when was', 'where is', 'what is the name of', 'how many', 'which country has'];

/** `questions` questions (half seen, half unseen) and `repository` repository items of each kind, from `seed`. */
export function paperScaleQuestions(questions: number, repository: number, seed: number): PaperScaleQuestions {
  const rng = SeededRandom.stream(seed, 'bench-paper-scale');
  const vocabulary = Array.from({ length: 3000 }, (_, i) => `term${i.toString(36)}`);
  const sentence = (): string =>
    `${STEMS[rng.int(0, STEMS.length - 1)]} ${Array.from({ length: rng.int(3, 8) }, () => vocabulary[rng.int(0, vocabulary.length - 1)]).join(' ')}?`;
  function makeItems(count: number, dataset: 'seen' | 'unseen', prefix: string): QAItem[] {
    return Array.from({ length: count }, (_, i) => {
      const question = `${sentence()} (${prefix}${i})`;
      return {
        id: `${prefix}-${i}`,
        dataset,
        source: dataset === 'seen' ? ['nq', 'triviaqa', 'popqa'][i % 3]! : `T${1 + (i % 20)}`,
        question,
        answers: dataset === 'seen' ? [rightAnswer(question)] : [],
        answerType: 'other',
        sourceId: `${prefix}:${i}`,
      };
    });
  }
  const seen = makeItems(Math.ceil(questions / 2), 'seen', 's');
  const unseen = makeItems(Math.floor(questions / 2), 'unseen', 'u');
  const rSeen = makeItems(repository, 'seen', 'rs');
  const rUnseen = makeItems(repository, 'unseen', 'ru');
  return { seen, unseen, rSeen, rUnseen, items: [...seen, ...unseen] };
}

/** The question set as the data set folder `llmkb eval --data DIR` reads (DATASET_FILES). */
export function writeDataDir(dataDir: string, set: PaperScaleQuestions): void {
  mkdirSync(dataDir, { recursive: true });
  const jsonl = (xs: QAItem[]) => xs.map((x) => JSON.stringify(x)).join('\n') + '\n';
  writeFileSync(join(dataDir, 'seenqa.jsonl'), jsonl(set.seen));
  writeFileSync(join(dataDir, 'unseenqa.jsonl'), jsonl(set.unseen));
  writeFileSync(join(dataDir, 'r_seen.jsonl'), jsonl(set.rSeen));
  writeFileSync(join(dataDir, 'r_unseen.jsonl'), jsonl(set.rUnseen));
}

/**
 * Starts bench/support/paper-scale-server.ts (answers after `delayMs`; logs request bodies per
 * stage into `logDir` when given) and returns it with its `/v1` base URL.
 */
export async function startPaperScaleServer(delayMs: number, logDir?: string): Promise<{ server: ChildProcess; port: string; baseURL: string }> {
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'paper-scale-server.ts'), String(delayMs), ...(logDir ? [logDir] : [])],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve));
  return { server, port, baseURL: `http://127.0.0.1:${port}/v1` };
}
