/**
 * Which columns of a CONNER run are computed as the paper's tables were, given the scorers the run
 * names: per column, the protocol entries that decide how it is computed; a column is "as the
 * paper's tables" when none of them is a departure. The scorer models themselves (NLI, relevance,
 * reference LM, paragraph-coherence model, answerer and helpfulness's loss model) are taken as
 * given: they are named beside the table, and a stand-in for the paper's model does not by itself
 * make a column computed otherwise. A generator answering its own knowledge, or helpfulness scored
 * by the reference LM instead of the answerer, is a departure of the columns it feeds.
 *
 * An entry no column claims (the sample of queries, the demonstrations, and any choice added
 * later) counts for every column, so a new departure is never read as comparable.
 */
import type { MethodSummary } from '../../method-summary.js';

/** The paper-table metrics, and the protocol entries that decide each (besides those every column shares). */
const COLUMN_ENTRIES: Record<string, { all: readonly string[]; dialogue?: readonly string[] }> = {
  factuality: { all: ['factuality-rule', 'factuality-aggregation', 'evidence', 'premises', 'nli-window', 'sentences', 'unscored-factuality'] },
  relevance: { all: ['relevance-window', 'unscored-relevance'], dialogue: ['dialogue-query'] },
  coherence_sentence: { all: ['coherence-sentence', 'scorer-truncation', 'underflow', 'sentences', 'unscored-coherence_sentence'] },
  coherence_paragraph: { all: ['coherence-paragraph', 'unscored-coherence_paragraph'] },
  informativeness: {
    all: ['informativeness-prefix', 'informativeness-tokens', 'scorer-truncation', 'underflow', 'unscored-informativeness'],
    dialogue: ['dialogue-query'],
  },
  helpfulness: {
    all: [
      'helpfulness',
      'helpfulness-prompt',
      'helpfulness-baseline',
      'helpfulness-truncation',
      'helpfulness-scorer',
      'answerer',
      'scorer-truncation',
      'underflow',
      'unscored-helpfulness',
    ],
  },
  validity: { all: ['nli-window', 'validity-pair', 'empty-answer', 'answerer', 'unscored-validity'], dialogue: ['dialogue-validity', 'evidence', 'premises'] },
};

/** The columns' metric ids and the entry set that decides each. */
const COLUMN_OF: Record<string, string> = {
  factuality: 'factuality',
  fact_consistent: 'factuality',
  non_verified: 'factuality',
  fact_inconsistent: 'factuality',
  relevance: 'relevance',
  coherence_sentence: 'coherence_sentence',
  coherence_paragraph: 'coherence_paragraph',
  informativeness: 'informativeness',
  helpfulness: 'helpfulness',
  helpfulness_raw: 'helpfulness',
  validity: 'validity',
};

/** Entries that name a model; taken as given unless their choice says the paper's setup was not followed. */
const MODEL_ENTRIES = new Set(['nli-model', 'relevance-model', 'scorer-model', 'coherence-model', 'helpfulness-scorer', 'answerer']);
/** Choices of the model entries that are departures in themselves, not stand-ins. */
const NOT_A_STAND_IN = /^(the generator|several|unknown|the reference LM)/;

/** The mark of a value computed otherwise than the paper's tables, and what it means. */
export const NOT_AS_PAPER_MARK = '≈';
export const NOT_AS_PAPER_NOTE = `${NOT_AS_PAPER_MARK}: computed otherwise than the paper's tables, given the scorers named; per column, the protocol entries that depart from them (the scorers themselves are listed with each run)`;

export interface ColumnVerdict {
  /** Computed as the paper's tables were, given the scorers named. */
  asPaper: boolean;
  /** The protocol entries that make it differ. */
  departures: string[];
}

const claimed = new Set(Object.values(COLUMN_ENTRIES).flatMap((c) => [...c.all, ...(c.dialogue ?? [])]));

/** Every paper-table metric of a run: as the paper's tables or not, and why (none for a summary without a protocol). */
export function paperColumns(s: Pick<MethodSummary, 'protocol' | 'breakdowns'>): Record<string, ColumnVerdict> {
  const entries = s.protocol?.entries ?? {};
  const dialogue = (s.breakdowns as { task?: unknown } | undefined)?.task === 'dialogue';
  const departs = (id: string): boolean => {
    const e = entries[id];
    if (!e || e.status === 'paper') return false;
    return !MODEL_ENTRIES.has(id) || NOT_A_STAND_IN.test(e.choice);
  };
  // A metric left unscored has no value to mark; its entry is its own column's only.
  const shared = Object.keys(entries).filter((id) => !claimed.has(id) && !MODEL_ENTRIES.has(id) && !id.startsWith('unscored-') && departs(id));
  const out: Record<string, ColumnVerdict> = {};
  for (const [metric, column] of Object.entries(COLUMN_OF)) {
    const c = COLUMN_ENTRIES[column]!;
    const own = [...c.all, ...(dialogue ? (c.dialogue ?? []) : [])].filter(departs);
    const departures = [...new Set([...own, ...shared])];
    out[metric] = { asPaper: departures.length === 0, departures };
  }
  return out;
}

/** A cell's text with the mark when its column is computed otherwise. */
export function markNotAsPaper(text: string, verdict: ColumnVerdict | undefined): string {
  return verdict && !verdict.asPaper && text !== '-' ? `${text} ${NOT_AS_PAPER_MARK}` : text;
}

/** One line per column computed otherwise, with the entries why, over several runs (runs named when they differ). */
export function notAsPaperLines(runs: ReadonlyArray<{ name: string; columns: Record<string, ColumnVerdict> }>, labels: ReadonlyMap<string, string>): string[] {
  const lines: string[] = [];
  for (const [metric, label] of labels) {
    const why = new Map<string, string[]>();
    for (const r of runs) {
      const v = r.columns[metric];
      if (!v || v.asPaper) continue;
      const key = v.departures.join(', ');
      why.set(key, [...(why.get(key) ?? []), r.name]);
    }
    if (why.size === 0) continue;
    const all = why.size === 1 && [...why.values()][0]!.length === runs.length;
    lines.push(`${label}: ${[...why.entries()].map(([ids, names]) => `${ids}${all ? '' : ` [${names.join(', ')}]`}`).join('; ')}`);
  }
  return lines;
}
