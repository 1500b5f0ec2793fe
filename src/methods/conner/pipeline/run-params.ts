/**
 * What makes a CONNER run's results what they are besides generator, queries, setting and seed:
 * part of its run id (another answerer, scorer or choice is another run). `facts` is what the
 * summary's protocol says of the scorers, kept with the run so a run read back from the store
 * alone is summarised as it was made.
 */
import { checksumOfLines } from '../../../io/checksum.js';
import type { ModelExecutor } from '../../../executor/model-executor.js';
import { canonicalJson } from '../../../store/call-key.js';
import type { ScoringChoices } from '../conner-choices.js';
import { scorerFacts, type ConnerRunFacts } from '../conner-run-facts.js';
import { scorersOf, scoringExecutors } from '../scoring/scoring-setup.js';
import type { ConnerContext } from './inputs.js';

export type ConnerRunParams = {
  kind: 'conner';
  prompt: number | null;
  shots: number;
  answerShots: number;
  maxTokens: number;
  answerMaxTokens: number;
  /** The answerer's identity; null: the generator answers its own knowledge. */
  answerer: string | null;
  demoPool: string;
  fixedDemos: string[] | null;
  /** Identities of the scoring roles' models (null: none). */
  scorers: Record<'scorer' | 'nli' | 'relevance' | 'coherence', string | null>;
  choices: ScoringChoices;
  facts: Omit<ConnerRunFacts, 'limit' | 'choices'>;
};

export function connerRunParams(roles: Readonly<Record<string, ModelExecutor>>, setting: string, context: ConnerContext): ConnerRunParams {
  const { options } = context;
  const identity = (role: string) => roles[role]?.model.cacheIdentity ?? null;
  const setup = scorersOf(scoringExecutors(roles), context.evidence);
  return {
    kind: 'conner',
    prompt: setting === 'zero-shot' ? options.prompt : null,
    shots: setting === 'few-shot' ? (context.fixedDemos?.length ?? options.shots) : 0,
    answerShots: options.answerShots,
    maxTokens: options.maxTokens,
    answerMaxTokens: options.answerMaxTokens,
    answerer: identity('answerer'),
    demoPool: checksumOfLines(context.demoPool, (d) => canonicalJson(d)),
    fixedDemos: context.fixedDemos?.map((d) => d.id) ?? null,
    scorers: { scorer: identity('scorer'), nli: identity('nli'), relevance: identity('relevance'), coherence: identity('coherence') },
    choices: options.choices,
    facts: { evidence: context.evidence.id, ...scorerFacts(setup) },
  };
}
