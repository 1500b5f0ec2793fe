import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { declinesToAnswer, detectUninformative, looksLikeTitle, normalizeOnce } from './uninformative.js';
import { normalizeAnswer } from '../../../text/normalize-answer.js';

interface LabelledCase {
  label: 'none' | 'unsure' | 'repetition' | 'answer';
  question: string;
  response: string;
}

function readCases(file: string): LabelledCase[] {
  return readFileSync(join(import.meta.dirname, 'fixtures', file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LabelledCase);
}

/** `labelled`: the set the rules were developed on; `heldout`: written afterwards, never tuned on. */
const DEV = readCases('uninformative-labelled.jsonl');
const HELDOUT = readCases('uninformative-heldout.jsonl');
const CASES = [...DEV, ...HELDOUT];

const CLASSES = ['none', 'unsure', 'repetition', 'answer'] as const;

/** Per-class precision and recall of the rules on the labelled set. */
export function scoreRules(cases: readonly LabelledCase[]) {
  const predicted = cases.map((c) => detectUninformative(c.response, c.question)?.type ?? 'answer');
  const accuracy = predicted.filter((p, i) => p === cases[i]!.label).length / cases.length;
  const perClass = Object.fromEntries(
    CLASSES.map((k) => {
      const tp = predicted.filter((p, i) => p === k && cases[i]!.label === k).length;
      const fp = predicted.filter((p, i) => p === k && cases[i]!.label !== k).length;
      const fn = predicted.filter((p, i) => p !== k && cases[i]!.label === k).length;
      return [k, { precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp + fn === 0 ? 1 : tp / (tp + fn), support: tp + fn }];
    }),
  ) as Record<(typeof CLASSES)[number], { precision: number; recall: number; support: number }>;
  const errors = cases.map((c, i) => ({ ...c, predicted: predicted[i] })).filter((c) => c.predicted !== c.label);
  return { accuracy, perClass, errors };
}

describe('uninformative rules on the labelled set', () => {
  it(`reach >= 95% accuracy with every class >= 90% recall (${CASES.length} responses)`, () => {
    assert.ok(CASES.length >= 150);
    for (const [name, set] of [
      ['development set', DEV],
      ['held-out set', HELDOUT],
    ] as const) {
      process.stdout.write(`${name}: accuracy ${(100 * scoreRules(set).accuracy).toFixed(1)}% on ${set.length}\n`);
    }
    const { accuracy, perClass, errors } = scoreRules(CASES);
    const lines = [
      `accuracy ${(100 * accuracy).toFixed(1)}% on ${CASES.length}`,
      ...CLASSES.map(
        (k) =>
          `${k.padEnd(10)} precision ${(100 * perClass[k].precision).toFixed(1)}%  recall ${(100 * perClass[k].recall).toFixed(1)}%  n=${perClass[k].support}`,
      ),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    for (const e of errors) process.stdout.write(`miss: ${e.label} predicted ${e.predicted}: ${JSON.stringify(e.response)}\n`);
    assert.ok(accuracy >= 0.95, `accuracy ${accuracy}`);
    // The figures the README quotes must not drop: 166/166 on the development set, 58/59 held out.
    assert.equal(scoreRules(DEV).accuracy, 1);
    assert.ok(scoreRules(HELDOUT).accuracy >= 58 / 59);
    for (const k of CLASSES) assert.ok(perClass[k].recall >= 0.9, `${k} recall ${perClass[k].recall}`);
  });

  it('records which rule fired', () => {
    assert.deepEqual(detectUninformative('', 'q?'), { type: 'none', rule: 'rule:empty', detail: 'empty response' });
    assert.equal(detectUninformative("I don't know.", 'Who?')?.rule, 'rule:unsure-answer');
    assert.equal(detectUninformative('As an AI language model I cannot know that.', 'Who?')?.rule, 'rule:unsure-phrase');
    assert.equal(detectUninformative('Paris Paris Paris Paris', 'Capital?')?.rule, 'rule:repetition-ngram');
    assert.equal(detectUninformative('Paris', 'Capital?'), undefined);
  });

  it('tells titles from sentences', () => {
    assert.ok(looksLikeTitle('Unknown Pleasures'));
    assert.ok(looksLikeTitle("I Don't Know How to Love Him"));
    assert.ok(!looksLikeTitle("I don't know."));
    assert.ok(!looksLikeTitle('Paris'));
  });

  // EVOUNA (human correctness labels): answers after a disclaimer are answers, so rules that call
  // them uninformative "eat" correct answers. Responses below are EVOUNA's (ChatGPT, GPT-4, GPT-3.5).
  it('lets an answer after a disclaimer through, but not a guess after "not sure"', () => {
    assert.equal(
      detectUninformative(
        "As an AI language model, I don't have access to real-time information. However, the military plane crash in Mississippi happened on July 10, 2017.",
        'when did the military plane crash in mississippi',
      ),
      undefined,
    );
    assert.equal(
      detectUninformative(
        'As an AI language model, I do not have personal opinions or beliefs, but to answer your question, Goku first went Super Saiyan 4 in the anime series Dragon Ball GT.',
        'when did goku first go super saiyan 4',
      ),
      undefined,
    );
    assert.equal(
      detectUninformative(
        "I'm sorry, but this information is incorrect. The first Christmas card was actually commissioned in 1843 by Sir Henry Cole.",
        'who commissioned the first christmas card in 1943',
      ),
      undefined,
    );
    // Still refusals: nothing after the turn, the turn declines again, or the model is unsure of the answer itself.
    assert.equal(
      detectUninformative(
        "As an AI language model, I don't have access to personal information about individuals.",
        'In what year did Wren Octavian Marchbanks die?',
      )?.type,
      'unsure',
    );
    assert.equal(
      detectUninformative("I'm sorry, but I couldn't find any information about Thea Isadora Ravenhill.", 'What is the occupation of Thea Isadora Ravenhill?')
        ?.type,
      'unsure',
    );
    assert.equal(
      detectUninformative('As an AI, I cannot predict the future. However, it is hard to say.', 'Who is the supreme leader of Chile in 2040?')?.type,
      'unsure',
    );
    assert.equal(detectUninformative("I'm not sure, but I think it might be Charlotte Brontë.", 'Who wrote the novel Pride and Prejudice?')?.type, 'unsure');
    // A pointer elsewhere or an offer after the turn is no answer (the unseen questions' usual refusals).
    const q = 'Where was Gideon Tancred Halvorsen born?';
    assert.equal(
      detectUninformative("I couldn't find any information about Gideon Tancred Halvorsen. However, if you provide more context, I'd be happy to help.", q)
        ?.type,
      'unsure',
    );
    assert.equal(
      detectUninformative("As an AI language model, I don't have information about private individuals. However, you may want to check public records.", q)
        ?.type,
      'unsure',
    );
    assert.equal(
      detectUninformative('As an AI language model, I do not have access to real-time information. However, I can provide you with a general overview.', q)
        ?.type,
      'unsure',
    );
    assert.equal(
      detectUninformative(
        "As an AI language model, I don't have personal data about individuals. However, Gideon Tancred Halvorsen was born in Bergen, Norway.",
        q,
      ),
      undefined,
    );
    assert.equal(
      detectUninformative(
        "As an AI language model, I don't have personal beliefs or opinions, but I can provide you with factual information. Eminem plays Jimmy Smith Jr., based on his own life in Detroit.",
        'who do the characters represent in 8 mile',
      ),
      undefined,
    );
  });

  it('reads "as of my knowledge cutoff", fictional characters and quoted titles as answers', () => {
    assert.equal(
      detectUninformative(
        'As of my knowledge cutoff date in September 2021, the owner of Reading Football Club was the Chinese businessman Dai Yongge.',
        'who is the owner of reading football club',
      ),
      undefined,
    );
    assert.equal(
      detectUninformative('My knowledge cutoff prevents me from answering this.', 'What is the occupation of Thea Isadora Ravenhill?')?.type,
      'unsure',
    );
    assert.equal(
      detectUninformative('Kaa is a fictional Indian rock python in Rudyard Kipling\'s "The Jungle Book".', 'what type of snake is kaa in jungle book'),
      undefined,
    );
    assert.equal(
      detectUninformative(
        'The vascular layer of the eye is the uvea. It is made up of the iris, ciliary body, and choroid.',
        'the vascular layer of the eye is the',
      ),
      undefined,
    );
    assert.equal(detectUninformative('Gideon Tancred Halvorsen appears to be a fictional person.', 'Where was Gideon Tancred Halvorsen born?')?.type, 'unsure');
    assert.equal(detectUninformative('Gideon Tancred Halvorsen is fictional.', 'Where was Gideon Tancred Halvorsen born?')?.type, 'unsure');
    assert.equal(
      detectUninformative(
        'The most famous version of the song "I Can\'t Help Falling in Love With You" was recorded by Elvis Presley in 1961.',
        "who recorded i can't help falling in love with you",
      ),
      undefined,
    );
  });

  it('tells an answer taken from the question from a restatement', () => {
    assert.equal(detectUninformative('Greenland is part of North America.', 'is greenland part of europe or north america'), undefined);
    assert.equal(
      detectUninformative(
        'The most fundamental unit of life according to the cell theory is the cell.',
        'what is the most fundamental unit of life according to the cell theory',
      ),
      undefined,
    );
    assert.equal(
      detectUninformative('There are 7 episodes in Series 7 of Game of Thrones.', 'how many episodes in series 7 of game of thrones are there'),
      undefined,
    );
    assert.equal(detectUninformative('The capital of France is', 'What is the capital of France?')?.type, 'none');
    assert.equal(detectUninformative('the capital of France', 'What is the capital of France?')?.type, 'none');
  });

  it('does not see loops in dates or abbreviations', () => {
    assert.equal(detectUninformative('2008-12-12 00:00:00', 'when was the peak to peak gondola built'), undefined);
    assert.equal(
      detectUninformative(
        'Location of the U.S.S. Maine Explosion: The U.S.S. Maine exploded while it was in Havana Harbor, Cuba in 1898.',
        'where was the u.s.s maine when it exploded in 1898',
      ),
      undefined,
    );
    assert.equal(
      detectUninformative('He died in 1990. He died in 1990. He died in 1990.', 'In what year did Wren Octavian Marchbanks die?')?.type,
      'repetition',
    );
  });

  it('declinesToAnswer is detectUninformative saying unsure, on every labelled case and its questions crossed', () => {
    const cases = [...readCases('uninformative-labelled.jsonl'), ...readCases('uninformative-heldout.jsonl')];
    let unsure = 0;
    for (const [i, c] of cases.entries()) {
      // Also against another case's question, and a question about a title (the name rule).
      for (const question of [c.question, cases[(i * 7 + 3) % cases.length]!.question, 'Which album did the band release in 1979?']) {
        const expected = detectUninformative(c.response, question)?.type === 'unsure';
        if (expected) unsure++;
        assert.equal(declinesToAnswer(c.response, question), expected, `${JSON.stringify(c.response)} / ${JSON.stringify(question)}`);
      }
    }
    assert.ok(unsure > 50, `${unsure} unsure cases compared`);
    // A loop is not a refusal: the repetition rules, skipped, decide nothing here.
    assert.equal(
      detectUninformative('He died in 1990. He died in 1990. He died in 1990.', 'In what year did Wren Octavian Marchbanks die?')?.type,
      'repetition',
    );
    assert.equal(declinesToAnswer('He died in 1990. He died in 1990. He died in 1990.', 'In what year did Wren Octavian Marchbanks die?'), false);
  });

  it('finds a one-word question said back, whose question is normalised only when it could be that short', () => {
    // The question's letters and digits outside "a", "an", "the" bound its normalised length from below.
    for (const [response, question] of [
      ['Cat', 'the cat?'],
      ['cats', 'The cats!'],
      ['A cat', 'cat'],
      ['1999', '1999?'],
    ])
      assert.equal(detectUninformative(response!, question!)?.detail, 'the question itself', `${response} / ${question}`);
    assert.equal(detectUninformative('dog', 'the cat?'), undefined);
    assert.equal(detectUninformative('İstanbul', 'istanbul'), undefined, 'lower-cased İ is two characters');
  });

  it('normalizeOnce is normalizeAnswer', () => {
    for (const text of ['The Beatles!', 'The Beatles!', 'Saldaña', '  a  b ', 'İstanbul', '']) assert.equal(normalizeOnce(text), normalizeAnswer(text));
  });
});
