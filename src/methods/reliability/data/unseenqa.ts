/**
 * UnseenQA (paper section 3.2, Table 1): 20 templates x 150 questions whose answers no model can
 * know: future events (T1, T2, T5, T6, T7: only when the event is after `--cutoff`) and
 * fictional people (T3, T4, T8-T20). Fillers: National Olympic Committees (country/region),
 * Paris 2024 medal events, and seeded combinations of first/middle/last names.
 */
import { LlmkbError } from '../../../errors.js';
import { FIRST_NAMES, KNOWN_REAL_COMBINATIONS, LAST_NAMES, MIDDLE_NAMES } from './fictional-names.js';
import { stableId, type AnswerType, type QAItem } from './qa-item.js';
import { SeededRandom } from '../../../sampling/seeded-random.js';
import { PAPER_CUTOFF } from '../defaults.js';

export type Filler = 'country' | 'medalEvent' | 'person';

export interface UnseenTemplate {
  id: string;
  answerType: AnswerType;
  /** Table 1 wording, verbatim; `[x]` is the placeholder. */
  text: string;
  filler: Filler;
  /** For future-event templates: the event, and the first day its answer could be known. */
  event?: { name: string; knowableFrom: string };
}

/** Paper Table 1, verbatim (including T19's missing question mark and the typographic apostrophes). */
export const UNSEEN_TEMPLATES: readonly UnseenTemplate[] = [
  {
    id: 'T1',
    answerType: 'number',
    filler: 'country',
    text: 'How many gold medals did [country/region] win at the XXXIV Summer Olympic Games?',
    event: { name: 'XXXIV Summer Olympic Games (Los Angeles 2028)', knowableFrom: '2028-07-14' },
  },
  {
    id: 'T2',
    answerType: 'number',
    filler: 'country',
    text: 'In the 25th FIFA World Cup, what was the final ranking of [country/region]?',
    event: { name: '25th FIFA World Cup (2034)', knowableFrom: '2034-01-01' },
  },
  { id: 'T3', answerType: 'number', filler: 'person', text: 'How many children does [person] have?' },
  { id: 'T4', answerType: 'number', filler: 'person', text: 'How old was [person] in 2015?' },
  {
    id: 'T5',
    answerType: 'person',
    filler: 'medalEvent',
    text: 'Who won the bronze medal of [medal event] at the XXXIII Summer Olympic Games?',
    event: { name: 'XXXIII Summer Olympic Games (Paris 2024)', knowableFrom: '2024-07-26' },
  },
  {
    id: 'T6',
    answerType: 'person',
    filler: 'country',
    text: 'Who is the supreme leader of [country/region] in 2040?',
    event: { name: 'leaders in 2040', knowableFrom: '2040-01-01' },
  },
  {
    id: 'T7',
    answerType: 'person',
    filler: 'country',
    text: 'In 2028, who served as the head coach of [country/region] national football team?',
    event: { name: 'national football team coaches in 2028', knowableFrom: '2028-01-01' },
  },
  { id: 'T8', answerType: 'person', filler: 'person', text: 'Who is [person]’s mom?' },
  { id: 'T9', answerType: 'time', filler: 'person', text: 'On which date was [person] born?' },
  { id: 'T10', answerType: 'time', filler: 'person', text: 'In what year did [person] die?' },
  { id: 'T11', answerType: 'time', filler: 'person', text: 'In what year did [person] graduate with the bachelor’s degree?' },
  { id: 'T12', answerType: 'time', filler: 'person', text: 'When was the wedding date for [person]?' },
  { id: 'T13', answerType: 'location', filler: 'person', text: 'Where was [person] born?' },
  { id: 'T14', answerType: 'location', filler: 'person', text: 'Where did [person] pass away?' },
  { id: 'T15', answerType: 'location', filler: 'person', text: 'Which university did [person] attend for the undergraduate studies?' },
  { id: 'T16', answerType: 'location', filler: 'person', text: 'Where was [person]’s wedding held?' },
  { id: 'T17', answerType: 'other', filler: 'person', text: 'What was the cause of [person]’s death?' },
  { id: 'T18', answerType: 'other', filler: 'person', text: 'What is the title of the debut album released by [person]?' },
  { id: 'T19', answerType: 'other', filler: 'person', text: 'What is the name of the first film directed by [person]' },
  { id: 'T20', answerType: 'other', filler: 'person', text: 'What is the occupation of [person]?' },
];

export { PAPER_CUTOFF };

export function fillTemplate(template: UnseenTemplate, value: string): string {
  return template.text.replace(/\[(country\/region|medal event|person)\]/, value);
}

export interface Fillers {
  countries: string[];
  medalEvents: string[];
}

export interface DroppedTemplate {
  id: string;
  reason: string;
}

/** Templates usable for a model whose knowledge ends at `cutoff` (ISO date). */
export function templatesForCutoff(cutoff: string): { templates: UnseenTemplate[]; dropped: DroppedTemplate[] } {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(cutoff) || Number.isNaN(Date.parse(cutoff))) {
    throw new LlmkbError(`--cutoff "${cutoff}" is not a date`, { hint: "Write the model's knowledge cutoff as YYYY-MM-DD, e.g. --cutoff 2024-04-13." });
  }
  const templates: UnseenTemplate[] = [];
  const dropped: DroppedTemplate[] = [];
  for (const t of UNSEEN_TEMPLATES) {
    if (t.event && t.event.knowableFrom <= cutoff) {
      dropped.push({ id: t.id, reason: `${t.event.name} begins ${t.event.knowableFrom}, not after the cutoff ${cutoff}: its answers may be known` });
    } else {
      templates.push(t);
    }
  }
  if (templates.length === 0) {
    throw new LlmkbError(`--cutoff ${cutoff} leaves no UnseenQA template`, { hint: 'Use the knowledge cutoff of the model under test.' });
  }
  return { templates, dropped };
}

/** All fictional person names in a seeded order (distinct three-part combinations). */
export function fictionalPeople(seed: number, count: number, exclude: ReadonlySet<string> = new Set()): string[] {
  const rng = SeededRandom.stream(seed, 'unseenqa', 'people');
  const out: string[] = [];
  const used = new Set(exclude);
  let attempts = 0;
  while (out.length < count) {
    if (++attempts > count * 1000) throw new Error('cannot draw enough distinct fictional names');
    const name = `${rng.pick(FIRST_NAMES)} ${rng.pick(MIDDLE_NAMES)} ${rng.pick(LAST_NAMES)}`;
    if (used.has(name) || KNOWN_REAL_COMBINATIONS.has(name)) continue;
    used.add(name);
    out.push(name);
  }
  return out;
}

export interface UnseenBuild {
  items: QAItem[];
  /** R_unseen: template questions disjoint from the items, answered "unsure". */
  repository: QAItem[];
  dropped: DroppedTemplate[];
  fillerCounts: { countries: number; medalEvents: number; people: number };
}

/**
 * Builds UnseenQA (`perTemplate` questions per usable template) and R_unseen
 * (`repositoryPerTemplate` per template, with fillers not used in UnseenQA).
 */
export function buildUnseenQA(fillers: Fillers, options: { seed: number; cutoff: string; perTemplate?: number; repositoryPerTemplate?: number }): UnseenBuild {
  const perTemplate = options.perTemplate ?? 150;
  const repoPer = options.repositoryPerTemplate ?? 2;
  const { templates, dropped } = templatesForCutoff(options.cutoff);
  const need = perTemplate + repoPer;
  const countries = SeededRandom.stream(options.seed, 'unseenqa', 'countries').shuffle(fillers.countries);
  const events = SeededRandom.stream(options.seed, 'unseenqa', 'events').shuffle(fillers.medalEvents);
  if (countries.length < need || events.length < need) {
    throw new LlmkbError(
      `not enough fillers for ${perTemplate} questions + ${repoPer} repository questions per template (countries ${countries.length}, medal events ${events.length})`,
      {
        hint: 'Lower --per-template.',
      },
    );
  }
  const people = fictionalPeople(options.seed, perTemplate + repoPer * UNSEEN_TEMPLATES.length);
  // The paper uses the same 150 fillers of a kind for every template of that kind.
  const pools: Record<Filler, string[]> = { country: countries, medalEvent: events, person: people };
  const items: QAItem[] = [];
  const repository: QAItem[] = [];
  for (const t of templates) {
    const values = pools[t.filler];
    values.slice(0, perTemplate).forEach((value, i) => {
      const question = fillTemplate(t, value);
      items.push({
        id: stableId(`unseen-${t.id}`, question),
        dataset: 'unseen',
        source: t.id,
        question,
        answers: [],
        answerType: t.answerType,
        sourceId: `${t.id}:${i + 1}`,
      });
    });
    // Repository questions use fillers outside the first `perTemplate`, different ones per template.
    const rest = values.slice(perTemplate);
    const offset = (Number(t.id.slice(1)) - 1) * repoPer;
    for (let k = 0; k < repoPer; k++) {
      const question = fillTemplate(t, rest[(offset + k) % rest.length]!);
      repository.push({ id: stableId(`runseen-${t.id}`, question), dataset: 'unseen', source: t.id, question, answers: ['unsure'], answerType: t.answerType });
    }
  }
  return { items, repository, dropped, fillerCounts: { countries: countries.length, medalEvents: events.length, people: people.length } };
}
