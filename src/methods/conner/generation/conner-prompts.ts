/**
 * The paper's prompts (Chen et al., Appendix F and G), verbatim: the best zero-shot knowledge
 * prompt of Table 11, the best few-shot example template of Table 12, and the best answer
 * template of Table 13, each marked ✓ in its table. The tables print line breaks as " \n "; they
 * are written here as "\n", as the authors' code does.
 */
import type { ConnerQuery } from './conner-queries.js';

/** One demonstration: a query with its gold knowledge and gold answer. */
export interface Demonstration {
  id: string;
  topic: string;
  query: string;
  knowledge: string;
  answer: string;
}

/**
 * Table 11: the zero-shot prompts the paper tried, per data set, in the table's order; prompt 4
 * is the one marked ✓ (best on the validation sets) and the default. `{query}` is the question
 * (NQ) or the partner's last utterance (WoW).
 */
export const ZERO_SHOT_PROMPTS: Record<ConnerQuery['task'], readonly string[]> = {
  qa: [
    'Topic: {topic}\nQuery: {query}\nRelated wikipedia knowledge:',
    'Topic: {topic}\nGenerate a background document from Wikipedia to answer the given question.\n{query}\n',
    'Topic: {topic}\nGenerate a Wikipedia knowledge to answer the given question.\nQuestion: {query}\nWikipedia knowledge:',
    'Topic: {topic}\nGenerate a Wikipedia to answer the given question.\nQuestion: {query}\nWikipedia:',
  ],
  dialogue: [
    'Topic: {topic}\nQuery: {query}\nRelated Wikipedia knowledge:',
    'Topic: {topic}\nGenerate a background document from Wikipedia to reply to the utterance.\n{query}\n',
    'Topic: {topic}\nGenerate a Wikipedia knowledge to answer the given question.\nUtterance: {query}\nWikipedia knowledge:',
    'Topic: {topic}\nGenerate a Wikipedia to answer the given question.\nQuestion: {query}\nWikipedia:',
  ],
};

/** The ✓ prompt of Table 11 (number 4 of 4). */
import { BEST_ZERO_SHOT_PROMPT } from '../defaults.js';

function fill(template: string, q: Pick<ConnerQuery, 'topic' | 'query'>): string {
  return template.replace('{topic}', () => q.topic).replace('{query}', () => q.query);
}

/** Zero-shot knowledge prompt number `prompt` (1-4) of Table 11; default the ✓ one. */
export function zeroShotKnowledgePrompt(q: Pick<ConnerQuery, 'topic' | 'query'> & { task?: ConnerQuery['task'] }, prompt = BEST_ZERO_SHOT_PROMPT): string {
  const template = ZERO_SHOT_PROMPTS[q.task ?? 'qa'][prompt - 1];
  if (template === undefined) throw new RangeError(`Table 11 has prompts 1-4, not ${prompt}`);
  return fill(template, q);
}

/** Table 12, the ✓ template: `Topic: {topic} \n Query: {query} \n Related Wikipedia knowledge: {knowledge}`. */
export function fewShotKnowledgeExample(topic: string, query: string, knowledge?: string): string {
  const head = `Topic: ${topic}\nQuery: ${query}\nRelated Wikipedia knowledge:`;
  return knowledge === undefined ? head : `${head} ${knowledge}`;
}

/**
 * Appendix F.2: `prompt = (example_1 \n ... example_k \n example_test)`, where example_test has no
 * `{knowledge}`.
 */
export function fewShotKnowledgePrompt(q: Pick<ConnerQuery, 'topic' | 'query'>, demos: readonly Demonstration[]): string {
  return [...demos.map((d) => fewShotKnowledgeExample(d.topic, d.query, d.knowledge)), fewShotKnowledgeExample(q.topic, q.query)].join('\n');
}

/**
 * Table 13, the ✓ templates. NQ: `Topic: {topic} \n Passage: {knowledge} \n Query: {query} \n Answer: {answer}`;
 * WoW: `Topic: {topic} \n Passage: {knowledge} \n Speaker 1: {utterance} \n Speaker 2: {response}`.
 * With no knowledge the passage is left empty (`Passage:`), as the authors' code does for its
 * "without knowledge" baseline.
 */
export function answerExample(task: ConnerQuery['task'], topic: string, knowledge: string, query: string, answer?: string): string {
  const passage = knowledge.trim() === '' ? 'Passage:' : `Passage: ${knowledge.trim()}`;
  const [ask, reply] = task === 'qa' ? ['Query', 'Answer'] : ['Speaker 1', 'Speaker 2'];
  const head = `Topic: ${topic}\n${passage}\n${ask}: ${query}\n${reply}:`;
  return answer === undefined ? head : `${head} ${answer}`;
}

/** Few-shot answer prompt (Appendix G): demonstrations with their gold knowledge, then the test example. */
export function answerPrompt(q: Pick<ConnerQuery, 'task' | 'topic' | 'query'>, knowledge: string, demos: readonly Demonstration[]): string {
  return [...demos.map((d) => answerExample(q.task, d.topic, d.knowledge, d.query, d.answer)), answerExample(q.task, q.topic, knowledge, q.query)].join('\n\n');
}

/** Where a base model's continuation of these prompts ends: the start of a next example. */
export const KNOWLEDGE_STOP = ['\nTopic:', '\n\n'];
export const ANSWER_STOP = ['\n'];
