import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LEXICAL_JUDGE_ID, LEXICAL_RULES, lexicalMatch, repairMojibake, type LexicalRule } from './lexical-match.js';

/** Each case matches by its rule, and does not once that rule is switched off. */
const CASES: Array<{ rule: LexicalRule; response: string; answers: string[]; question?: string }> = [
  { rule: 'containment', response: 'It was William Shakespeare.', answers: ['William Shakespeare'] },
  { rule: 'glued', response: 'The Best Years of Our Lives is a 1946 American film directed byWilliam Wyler1.', answers: ['William Wyler'] },
  { rule: 'glued', response: 'The first Ice Age movie was released on March 15, 200212.', answers: ['2002'] },
  { rule: 'glued', response: 'The average lifespan of a Basset Hound is around 10-12 years.', answers: ['10–12 years'] },
  { rule: 'forms', response: 'The International System of Units (SI) has 7 basic units.', answers: ['seven'] },
  { rule: 'forms', response: 'A political leader during the Roman Empire was called an emperor.', answers: ['emperors'] },
  { rule: 'dates', response: 'Amnesia: The Dark Descent was released on September 8, 2010.', answers: ['8 September 2010'] },
  {
    rule: 'partial-dates',
    response: 'Nintendo was founded in 1889 by Fusajiro Yamauchi in Kyoto.',
    answers: ['23 September 1889'],
    question: 'when was the japanese videogame company nintendo founded',
  },
  {
    rule: 'answer-recall',
    response: 'The role of Ricky Underwood was played by actor Daren Kagasoff.',
    answers: ['Daren Maxwell Kagasoff'],
    question: 'who played ricky in secret life of the american teenager',
  },
  { rule: 'token-f1', response: 'Long Island', answers: ['Long Island of 1922'] },
];

describe(`the lexical judge (${LEXICAL_JUDGE_ID})`, () => {
  for (const c of CASES) {
    it(`${c.rule}: ${c.response.slice(0, 60)}`, () => {
      const on = lexicalMatch(c.response, c.answers, c.question === undefined ? {} : { question: c.question });
      assert.equal(on.correct, true, on.detail);
      assert.equal(on.rule, c.rule, on.detail);
      // Later rules may still match a case once its own rule is off; switching off every rule from it onwards must not.
      const later = LEXICAL_RULES.slice(LEXICAL_RULES.indexOf(c.rule));
      assert.equal(lexicalMatch(c.response, c.answers, { without: later, ...(c.question === undefined ? {} : { question: c.question }) }).correct, false);
    });
  }

  it('does not match a different date, number or name', () => {
    assert.equal(lexicalMatch('September 24, 2017', ['September 19, 2017']).correct, false, 'F1 0.67 but another day');
    assert.equal(lexicalMatch('"Son of a Preacher Man" was released on November 16, 1968.', ['November 8, 1968']).correct, false);
    // Dates compared component by component, not as string prefixes.
    assert.equal(lexicalMatch('It was released on April 1, 2018.', ['April 17, 2018']).correct, false, '2018-4-1 is not within 2018-4-17');
    assert.equal(lexicalMatch('It premiered in January 2018.', ['November 8, 2018']).correct, false, '2018-1 is not within 2018-11');
    assert.equal(lexicalMatch('It came out on November 1, 1968.', ['November 16, 1968']).correct, false);
    assert.equal(
      lexicalMatch('The 2017 college football season ended on January 8, 2018.', ['December 9, 2017'], {
        question: 'when does the 2017 college football season end',
      }).correct,
      false,
      'the year comes from the question',
    );
    assert.equal(lexicalMatch('5 ft 5 in', ['5 ft 6 in']).correct, false);
    assert.equal(lexicalMatch('W Shakespeare', ['William Shakespeare']).correct, false, 'one of two words');
    assert.equal(lexicalMatch('Shakespeareanism', ['Shakespeare']).correct, false, 'whole words only');
    assert.equal(
      lexicalMatch(
        'The border between India and Pakistan is called the Radcliffe Line, after Sir Cyril Radcliffe who drew it in 1947.',
        ['India and Pakistan Border'],
        { question: 'what is the name of india pakistan border' },
      ).correct,
      false,
      'only words of the question found',
    );
    assert.equal(lexicalMatch('', ['Paris']).correct, false);
  });

  it("reads NQ-open answers as NQ301's raters do (lexical-v3): mojibake, ranges, units, initials, short first names", () => {
    assert.equal(repairMojibake('around 2.45Â\u00a0billion years ago'), 'around 2.45\u00a0billion years ago');
    assert.equal(repairMojibake('2012â€“13'), '2012–13');
    assert.equal(repairMojibake('Ole Einar BjÃ¸rndalen'), 'Ole Einar Bjørndalen');
    assert.equal(repairMojibake('Â£5 and € 3'), 'Â£5 and € 3', 'not mojibake as a whole: left as it is');
    assert.equal(lexicalMatch('Approximately 2.45 billion years ago.', ['around 2.45Â\u00a0billion years ago']).correct, true, "NQ301's raters: acceptable");
    assert.equal(
      lexicalMatch('around 2.45 billion years ago', ['around 2.45Â\u00a0billion years ago']).detail,
      'contains "around 2.45Â\u00a0billion years ago"',
    );
    assert.equal(lexicalMatch('10 to 12 years', ['10â€“12 years']).correct, true);
    assert.equal(lexicalMatch('100°C = 373.15 K', ['100\u00a0°C']).correct, true);
    assert.equal(lexicalMatch('Dr. B.R. Ambedkar', ['B. R. Ambedkar']).correct, true);
    assert.equal(lexicalMatch('Dave Gahan', ['David Gahan'], { question: 'who is the lead singer of depeche mode' }).correct, true);
    assert.equal(
      lexicalMatch('Aaron Harrison', ['Andrew Harrison'], { question: 'who were the twins that played for kentucky' }).correct,
      false,
      'another first name',
    );
    assert.equal(
      lexicalMatch('The Battle of Culloden', ['Battle of Antietam'], { question: "which battle ended britain's support for the south" }).correct,
      false,
      "only the question's words in common",
    );
  });

  it('says which rule matched', () => {
    assert.match(lexicalMatch('Nintendo was founded in 1889.', ['23 September 1889']).detail, /less precise date than "23 September 1889"/);
    assert.match(lexicalMatch('Lyon', ['Paris']).detail, /no rule matched/);
  });
});
