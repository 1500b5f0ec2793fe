/**
 * The question writer of `llmkb data from-corpus`: the prompt (version
 * `QUESTION_WRITER_PROMPT_VERSION`) that asks an LLM for one factoid question about a passage,
 * and the parser of its reply. The reply must hold a line `QUESTION: <question>` and a line
 * `ANSWER: <answer>`, and may hold `TYPE: <person|location|time|number|other>`; anything before,
 * between or after them is ignored, quotes around the question and answer are dropped, and a
 * reply without both lines is rejected as `unparseable`.
 */
import type { Executed } from '../../../executor/model-executor.js';
import type { ChatRequest, CompletionRequest, CompletionResult, Model } from '../../../providers/language-model.js';

/** What the builder needs of an executor (ModelExecutor has it). */
export interface QuestionWriter {
  readonly model: Pick<Model, 'modelId' | 'complete' | 'chat'>;
  complete(request: CompletionRequest): Promise<Executed<CompletionResult>>;
  chat(request: ChatRequest): Promise<Executed<CompletionResult>>;
}

export const QUESTION_WRITER_PROMPT_VERSION = 'corpus-question-v1';

export function questionWriterPrompt(passage: string): string {
  return `INSTRUCTION: Write one factoid question about the facts in the passage below, and its answer.
- The answer must be a short span (at most five words) copied exactly from the passage: a name, a number, a date, a place or a term.
- The question must make sense on its own to someone who has never seen the passage: name the subject; never write "according to the text", "in the passage", "in this paper", "the authors" or "the study".
- Do not put the answer in the question.
Reply in exactly this form:
QUESTION: <the question>
ANSWER: <the span copied from the passage>
TYPE: <one of: person, location, time, number, other>

PASSAGE: ${passage.replace(/\s+/g, ' ').trim()}
`;
}

export interface ParsedQuestion {
  question: string;
  answer: string;
  type: string | undefined;
}

export function parseWriterReply(text: string): ParsedQuestion | undefined {
  const q = /QUESTION:\s*(.+)/i.exec(text);
  const a = /ANSWER:\s*(.+)/i.exec(text);
  if (q === null || a === null) return undefined;
  const t = /TYPE:\s*([A-Za-z]+)/i.exec(text);
  const clean = (s: string): string =>
    s
      .trim()
      .replace(/^["'“”]+|["'“”]+$/g, '')
      .trim();
  const answer = clean(clean(a[1]!).replace(/[.;,]+$/, ''));
  const question = clean(q[1]!);
  if (question.length === 0 || answer.length === 0) return undefined;
  return { question, answer, type: t?.[1]?.toLowerCase() };
}
