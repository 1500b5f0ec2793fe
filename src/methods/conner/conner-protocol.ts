/**
 * What a CONNER run did where the paper leaves a choice open or where llmkb departs from the
 * paper's setup: written into every summary, so that numbers are never read as the paper's own
 * protocol when they are not (like the reliability method's protocol record). Every choice of
 * ./conner-choices.ts, the scorers' stand-ins, the answerer and what the run had to adapt (shots
 * dropped, premises cut, probabilities floored, empty knowledge) is built here, in one place,
 * from the run's and its groups' facts (./conner-run-facts.ts).
 */
import { PPL_CAP } from './conner-choices.js';
import { type ConnerGroupFacts, type ConnerRunFacts, SCORER_ROLES } from './conner-run-facts.js';
import { PARAGRAPH_COHERENCE_FALLBACK } from './scoring/coherence.js';
import { UNDERFLOW_LOGPROB } from './scoring/scorers.js';

export interface ConnerProtocolNote {
  id: string;
  /** `departure`: the paper did otherwise; `decision`: the paper does not say, or this is its way. */
  kind: 'departure' | 'decision';
  /** The choice itself, short (runs that differ in it are told apart by it). */
  choice: string;
  /** What it means. */
  text: string;
}

const paper = (id: string, choice: string, text: string): ConnerProtocolNote => ({ id, kind: 'decision', choice, text });
const departure = (id: string, choice: string, text: string): ConnerProtocolNote => ({ id, kind: 'departure', choice, text });
/** A choice that is the released scripts' form (whose numbers the paper's tables are) is a decision; any other form departs from the tables. */
const scripts = (asScripts: boolean, id: string, choice: string, text: string): ConnerProtocolNote =>
  asScripts ? paper(id, choice, text) : departure(id, choice, text);

function answererNote(group: ConnerGroupFacts): ConnerProtocolNote | undefined {
  const { answerers, generator } = group;
  if (answerers.length === 0) return undefined;
  if (answerers.length > 1)
    return departure(
      'answerer',
      `several: ${answerers.map((a) => a ?? 'unknown').join(', ')}`,
      'the downstream answers of this run come from more than one model; the paper has one fixed few-shot answerer (LLaMA-65B, Appendix G) for every generator',
    );
  const answerer = answerers[0]!;
  if (answerer === null)
    return departure(
      'answerer',
      'unknown',
      'the knowledge file does not say which model wrote the downstream answers ("answerer"); the paper has one fixed few-shot answerer (LLaMA-65B, Appendix G) for every generator',
    );
  if (answerer === generator)
    return departure(
      'answerer',
      `the generator (${answerer})`,
      'the generator under test wrote its own downstream answers, so validity and helpfulness measure it as an answerer too; the paper has one fixed few-shot answerer (LLaMA-65B, Appendix G) for every generator (`conner generate --answerer`)',
    );
  return departure(
    'answerer',
    answerer,
    `one fixed answerer wrote the downstream answers (Table 13, few-shot) for every generator, as the paper's Appendix G has; ${answerer} is a stand-in for the paper's LLaMA-65B (llmkb does not check model names); compare only runs with the same answerer`,
  );
}

/** Factuality and validity: how NLI verdicts become scores, and what they are checked against. */
function nliNotes(run: ConnerRunFacts, group: ConnerGroupFacts): ConnerProtocolNote[] {
  const c = run.choices;
  const retrieved = run.evidence !== 'reference';
  const withGold = retrieved && run.evidence.startsWith('reference, then');
  return [
    c.factualityRule === 'labels'
      ? paper(
          'factuality-rule',
          "sentence labels (the authors' scripts)",
          `each sentence is labelled by the argmax of its best evidence's NLI vector and the labels are combined as ordinals inconsistent < non-verified < consistent, as the authors' src/eval_exp.py:124-146 does for the published tables${c.aggregation === 'mean' ? "; with mean the shares count the sentences' labels over the whole set" : ''}`,
        )
      : departure(
          'factuality-rule',
          'NLI vectors (Eq. 1)',
          "the sentences' NLI vectors (entailment, neutral, contradiction) are aggregated along the entailment dimension, as the text's Eq. 1 writes it; an item's label, for the shares, is the largest of its three scores (ties: consistent, then non-verified); the published tables come from the scripts' sentence labels (src/eval_exp.py:136-146)",
        ),
    scripts(
      c.aggregation === 'max',
      'factuality-aggregation',
      c.aggregation,
      `factuality aggregated with ${c.aggregation} over sentences (the text exemplifies min and allows min, mean or max; the published tables use max, scripts/nq_factuality.sh:17 outer_strategy=max): min/max keep the whole NLI vector of the sentence with the lowest/highest ${c.factualityRule === 'vector' ? 'entailment' : 'label'}, mean averages the vectors; a sentence with no evidence counts as non-verified (0, 1, 0)`,
    ),
    !retrieved
      ? departure(
          'evidence',
          'reference knowledge',
          "evidence is the query's gold passage alone; the scripts also give the NLI model the top 10 passages ColBERTv2 retrieved from Wikipedia for the item, after the gold passage (src/eval_exp.py:77-114, scripts/nq_factuality.sh IR_num=10): give --corpus for them (the paper's Appendix B finds reference knowledge suffices with enough evidence)",
        )
      : withGold
        ? departure(
            'evidence',
            run.evidence,
            `evidence is one list per item, as the scripts' (src/eval_exp.py:77-114): the gold passage's sentences, the gold passage whole, then the item's passages retrieved by ${run.evidence.replace(/^reference, then /, '')}, searched with the knowledge text, the first 32 pairs; the scripts' passages come from ColBERTv2 over Wikipedia`,
          )
        : departure(
            'evidence',
            run.evidence,
            `evidence is each sentence's own passages retrieved by ${run.evidence}, without the gold passage; the scripts check each sentence against the gold passage and the item's top 10 ColBERTv2 passages (src/eval_exp.py:77-114)`,
          ),
    ...(retrieved && !withGold
      ? []
      : [
          scripts(
            c.premises === 'sentences',
            'premises',
            c.premises === 'sentences' ? 'sentences, then the whole passage (first 32)' : 'the whole passage',
            c.premises === 'sentences'
              ? "the gold passage gives the NLI model its sentences and then itself whole, the first 32 premises per claim, as the authors' src/eval_exp.py:78,113-114 does (the paper does not say)"
              : "the gold passage is one premise, whole; the authors' src/eval_exp.py:78 also gives its sentences",
          ),
        ]),
    paper(
      'nli-window',
      'premise cut to the window',
      `a premise longer than the NLI model's window is cut to the longest prefix of its words that fits, the claim never; ${group.premiseCuts} of ${group.items} items had one cut (noted in their records)`,
    ),
    scripts(
      c.dialogueValidity === 'response-and-evidence',
      'dialogue-validity',
      c.dialogueValidity === 'evidence' ? 'the evidence (Eq. 8)' : 'the gold response and the evidence',
      c.dialogueValidity === 'evidence'
        ? "open-answer validity (Eq. 8, dialogue) is the answer's largest entailment over the evidence collected for it; the authors' src/wow_validity.py also takes the gold response as a premise, first"
        : "open-answer validity (Eq. 8, dialogue) also takes the gold response as a premise, first, as the authors' src/wow_validity.py does",
    ),
    departure(
      'validity-pair',
      'question and answer joined by a space',
      'span validity (Eq. 7) gives the NLI model "{question} {gold answer}" and "{question} {answer}"; src/nq_validity.py:64-67 adds a "?" to the question and joins with a tab',
    ),
    departure(
      'empty-answer',
      'validity 0',
      `an empty downstream answer scores validity 0 (entailed by nothing) without an NLI call; the scripts give it to the NLI model like any answer; ${group.emptyAnswers} of ${group.items} answers were empty`,
    ),
  ];
}

/** The language-model metrics: coherence, informativeness, and what their scorer reads. */
function languageModelNotes(run: ConnerRunFacts, group: ConnerGroupFacts, scored: (m: string) => boolean): ConnerProtocolNote[] {
  const c = run.choices;
  const notes: ConnerProtocolNote[] = [];
  if (scored('coherence_sentence')) {
    notes.push(
      c.sentenceCoherence === 'mean-inverse'
        ? departure(
            'coherence-sentence',
            'mean of 1/PPL (Eq. 3)',
            "sentence coherence is (1/m) sum_i 1/PPL(s_i), as the text's Eq. 3 writes it; the published tables come from src/ppl.py:36-37,65-66, 1 / ((1/m) sum_i min(PPL(s_i), 200)); on the same 10 NQ items Eq. 3 gave 0.193 and the scripts' form 0.115 (-41%)",
          )
        : scripts(
            c.pplCap === PPL_CAP,
            'coherence-sentence',
            `1/mean(min(PPL, ${c.pplCap}))`,
            `sentence coherence is 1 / ((1/m) sum_i min(PPL(s_i), ${c.pplCap})), as the authors' src/ppl.py:36-37,65-66 computes it with a cap of ${PPL_CAP} (the shipped output emnlp_data/nq/random_testset/nq_ref_avg_sent_ppl was made with a cap of 100), not the text's Eq. 3 (mean of 1/PPL)`,
          ),
    );
  }
  if (scored('coherence_paragraph')) {
    notes.push(
      run.coherenceScorer !== undefined
        ? departure(
            'coherence-paragraph',
            'classifier score, sigmoid per item',
            `paragraph coherence (Eq. 4) is the score of the discourse-coherence scorer ${run.coherenceScorer}, normalised to [0, 1] per item (sigmoid of one output, softmax of several); the paper says "normalized score" without saying how, and the authors' src/discourse-coherence.py keeps Coherence-Momentum's raw score (get_main_score), so the values match neither the scripts' nor, necessarily, the paper's; the sigmoid keeps the order of items`,
          )
        : departure(
            'coherence-paragraph',
            '1/PPL of the whole text',
            `paragraph coherence (Eq. 4) is ${PARAGRAPH_COHERENCE_FALLBACK}; the paper uses a discourse-coherence model (Coherence-Momentum, Jwalapuram et al. 2021)`,
          ),
    );
  }
  if (scored('informativeness')) {
    notes.push(
      c.informativenessPrefix === 'table11'
        ? departure(
            'informativeness-prefix',
            'Table 11 prompt 4',
            "informativeness (Eq. 5) conditions on the query in Table 11's zero-shot prompt 4, the knowledge after a space (the paper does not give the prefix; the authors' src/info.py:38 uses its own instruction)",
          )
        : paper(
            'informativeness-prefix',
            "src/info.py's instruction",
            'informativeness (Eq. 5) conditions on the authors\' src/info.py:36-38 instruction "Generate a Wikipedia to answer the given question.\\nTopic: {topic}.\\nQuestion: {query}?\\nWikipedia:"',
          ),
    );
    notes.push(
      departure(
        'informativeness-tokens',
        'every knowledge token',
        'informativeness scores every knowledge token; src/info.py:49-53 slices the prefix off before shifting, so the first knowledge token is left unscored',
      ),
    );
  }
  if (['coherence_sentence', 'informativeness', 'helpfulness'].some(scored)) {
    notes.push(
      paper(
        'scorer-truncation',
        'first 300 words',
        "informativeness and sentence coherence read at most the first 300 words of a knowledge text and of each sentence (the authors' src/info.py:35 cuts knowledge to 300 words; src/ppl.py:21 cuts each sentence to 500 tokens); an item whose text still does not fit the scorer's context is left unscored for that metric, with a note in its record",
      ),
    );
    notes.push(
      paper(
        'underflow',
        `floor ${UNDERFLOW_LOGPROB.toFixed(2)}`,
        `a token the scorer gives probability 0 (below float precision) scores ln(2^-149) = ${UNDERFLOW_LOGPROB.toFixed(2)}, the log of the smallest positive single-precision number; ${group.flooredTokens} of ${group.items} items had one (noted in their records)`,
      ),
    );
  }
  return notes;
}

/** Helpfulness (Eq. 6): over the set, its prompt, its baseline, whose losses (the answerer's too when the scorer is the model that answered). */
function helpfulnessNotes(run: ConnerRunFacts, group: ConnerGroupFacts): ConnerProtocolNote[] {
  const { negatives, helpfulnessPrompt, helpfulnessBaseline } = run.choices;
  const h = run.helpfulnessScorer && {
    ...run.helpfulnessScorer,
    answerer: run.helpfulnessScorer.answerer || (group.answerers.length === 1 && group.answerers[0] === run.helpfulnessScorer.id),
  };
  if (!h) return [];
  const pool = group.baselinePool === undefined ? 'the scored queries' : `the ${group.baselinePool} scored queries with a gold passage and answer`;
  const shrunk = run.limit
    ? `; --limit ${run.limit.n} scored a sample, so this pool is the sample's queries, not the test file's (a baseline of another sample differs)`
    : '';
  return [
    paper(
      'helpfulness',
      helpfulnessBaseline === 'shared' ? 'over the set, shared baseline' : `over the set, u = ${negatives}`,
      `helpfulness (Eq. 6, first form with 1/u) is taken over the set as the authors' src/helpfulness.py does: max(0, 1 - mean_q L(q,k,a) / mean_q L(q,k^-,a)), the clip after averaging (Table 16 is the unclipped value, metric helpfulness_raw); L is the per-token mean loss of the gold answer; each record keeps its losses and the baseline passages' ids`,
    ),
    helpfulnessPrompt === 'released'
      ? departure(
          'helpfulness-prompt',
          "the scripts' 8-shot prompt, demonstrations from the scored set",
          `helpfulness's losses are of the gold answer after src/helpfulness.py:165-176's prompt (zero_shot=False in scripts/helpfulness/*.sh): up to 8 demonstrations "Passage / Query / Answer" within 1,800 words, no Topic line (demonstrations that overflow the loss model's context are dropped, last first, per prompt); the scripts' demonstrations are the query's 8 training examples of the prompt file (emnlp_data/*/random_prompts), these are 8 other queries of ${pool}, drawn per query with the seed`,
        )
      : departure(
          'helpfulness-prompt',
          'Table 13 template, no demonstrations',
          "helpfulness's losses L(q,k,a) are of the gold answer after the Table 13 answer template with no demonstrations; the paper's answering is few-shot (Appendix G), and the authors' scripts/helpfulness/*.sh score after src/helpfulness.py:165-176's 8-shot prompt (no Topic line)",
        ),
    helpfulnessBaseline === 'shared'
      ? departure(
          'helpfulness-baseline',
          `shared ${group.baselines.length === 1 ? group.baselines[0]! : group.baselines.length === 0 ? 'none' : `several: ${group.baselines.join(', ')}`}`,
          `one baseline per data set, as the scripts' single random_knowledge run (scripts/helpfulness/nq_random_knowledge.sh): k^- of a query is the gold passage of one other query of ${pool}, drawn per query id with the seed, so every generator and every run on these queries with this loss model divides by the same losses (made once, kept in the call cache; the key names them, and compare warns when runs' keys differ)${shrunk}; the scripts draw it from a demonstration in another query's prompt list (src/helpfulness.py:109, unseeded)`,
        )
      : departure(
          'helpfulness-baseline',
          `${negatives} other queries' knowledge, same generator`,
          `k^- (Eq. 6) is ${negatives} other queries' knowledge from the same generator, drawn per query with the run's seed${run.limit ? ` from the ${run.limit.n}-query sample of --limit, not the test file` : ''}, so two generators' helpfulness differ in their baselines too; the published tables divide every generator by one shared baseline (src/helpfulness.py knowledge_type=random_knowledge: a gold passage of one random demonstration of another query)`,
        ),
    departure(
      'helpfulness-truncation',
      'first 300 words',
      'helpfulness reads at most the first 300 words of the knowledge and of the baseline passage (as informativeness, src/info.py:35); src/helpfulness.py does not cut generated knowledge or the random passage (it cuts only reference knowledge, to 500 words, :128-131)',
    ),
    h.answerer
      ? departure(
          'helpfulness-scorer',
          h.id,
          `helpfulness's answer losses are the answerer's (${h.id}), as the paper's LLaMA-65B both answers and scores (Table 14, src/helpfulness.py); ${h.id} is a stand-in for LLaMA-65B (llmkb does not check model names)`,
        )
      : departure(
          'helpfulness-scorer',
          `the reference LM (${h.id})`,
          `helpfulness's answer losses are the reference language model's (${h.id}), the one of perplexity and informativeness; the paper scores them with its answerer, LLaMA-65B (\`conner score --answerer\`)`,
        ),
  ];
}

/** Each scoring role's model, a stand-in for the paper's (Table 14) unless the run used it; roles without a model are left out. */
function modelNotes(run: ConnerRunFacts): ConnerProtocolNote[] {
  return SCORER_ROLES.flatMap(({ role, id, paper: model, metrics }) => {
    const used = run.models?.[role];
    return used === undefined
      ? []
      : [
          departure(
            id,
            used,
            `${metrics} scored by ${used}, a stand-in for the paper's ${model} (Table 14); llmkb does not check model names, so any model is recorded so`,
          ),
        ];
  });
}

/** How the knowledge and its answers were generated, as the records show it. */
function generationNotes(group: ConnerGroupFacts): ConnerProtocolNote[] {
  const notes: ConnerProtocolNote[] = [];
  const answerer = answererNote(group);
  if (answerer) notes.push(answerer);
  notes.push(
    paper(
      'shots-fitted',
      'dropped until the prompt fits',
      `demonstrations that overflow the model's context are left out, last first, until the prompt fits (recorded per item): ${group.knowledgeShotsDropped} of ${group.items} knowledge prompts and ${group.answerShotsDropped} answer prompts had fewer than drawn`,
    ),
  );
  if (group.demosFromInput !== undefined) {
    notes.push(
      group.demosFromInput
        ? departure(
            'demonstrations',
            'drawn from the scored file',
            "few-shot demonstrations were drawn from the other queries of the scored test file (their gold knowledge and answers), not from the data set's training split (`conner generate --demos FILE`)",
          )
        : paper('demonstrations', 'from another file', "no few-shot demonstration comes from the scored queries' file"),
    );
  }
  if (group.givenKnowledge)
    notes.push(paper('given-knowledge', 'brought from elsewhere', 'knowledge texts were brought from elsewhere: their generation is not part of this run'));
  return notes;
}

/** Every choice of one group's run, those of metrics without a scorer left out (each unscored metric says so). */
export function connerProtocol(run: ConnerRunFacts, group: ConnerGroupFacts): ConnerProtocolNote[] {
  const scored = (m: string): boolean => !run.unscored.includes(m);
  return [
    run.choices.profile === 'equations'
      ? departure(
          'profile',
          'equations',
          "the paper text's equations (Eq. 1 with min, Eq. 3, u random other knowledge texts), options given over it as their entries say; the published Tables 2 and 3 come from the authors' released scripts (`--profile as-released`, the default), so these numbers are not theirs like for like",
        )
      : paper(
          'profile',
          'as-released',
          "the authors' released scripts' forms (ChanLiang/CONNER), which produced the paper's Tables 2 and 3, options given over it as their entries say; the entries marked as departures are where this run still differs from the scripts",
        ),
    ...(scored('factuality') ? nliNotes(run, group) : []),
    ...(scored('relevance') || scored('informativeness')
      ? [
          run.choices.dialogueQuery === 'utterance'
            ? departure(
                'dialogue-query',
                'last utterance',
                "for dialogue, relevance (Eq. 2) and informativeness (Eq. 5) read the partner's last utterance as the query, as Table 11's caption defines {utterance}; the authors' src/relevance.py and src/info.py read the whole dialogue history",
              )
            : paper(
                'dialogue-query',
                'dialogue history',
                'for dialogue, relevance and informativeness read the whole dialogue history (turns joined by " [SEP] ") as the query, as the authors\' src/relevance.py and src/info.py do',
              ),
        ]
      : []),
    ...(scored('relevance')
      ? [
          paper(
            'relevance-window',
            'knowledge cut to the window',
            `a knowledge text longer than the relevance model's window is cut to the longest prefix of its words that fits, the query never (the paper does not say; the authors' src/relevance.py likewise truncates each pair to 512 tokens, convert_examples_to_features with max_length=512); ${group.relevanceCuts} of ${group.items} items had it cut (noted in their records)`,
          ),
        ]
      : []),
    ...languageModelNotes(run, group, scored),
    ...helpfulnessNotes(run, group),
    ...modelNotes(run),
    ...generationNotes(group),
    departure(
      'sentences',
      'Unicode boundaries, abbreviations kept',
      'sentences are split by Unicode sentence boundaries (Intl.Segmenter) with abbreviations and initials kept whole ("U.S. Army", "Mr. Smith", "J. R. R. Tolkien", "No. 5"), as the scripts\' NLTK Punkt (sent_tokenize, src/eval_exp.py:77, src/ppl.py:59) does; Punkt\'s abbreviations are learned from data, so a rare boundary may differ',
    ),
    paper(
      'prompt-line-breaks',
      'line breaks',
      'the prompts of Tables 11-13 are used verbatim with their " \\n " written as a line break, as in the authors\' code',
    ),
    paper(
      'empty-knowledge',
      'left out of the intrinsic metrics',
      `${group.emptyKnowledge} of ${group.items} knowledge texts are empty: factuality, relevance, coherence and informativeness are undefined for them (left out of those means, as the authors' src/relevance.py leaves empty knowledge out; each record says so), helpfulness and validity are scored`,
    ),
    run.limit
      ? departure(
          'limit',
          `sample of ${run.limit.n}`,
          `scored on a seeded sample of at most ${run.limit.n} queries per file (seed ${run.limit.seed}), not the whole test set`,
        )
      : paper('limit', 'all queries', `all ${group.items} queries of the knowledge files were scored`),
    ...run.unscored.map((m) => departure(`unscored-${m}`, 'not scored', `${m} not scored: no scorer configured for it`)),
  ];
}
