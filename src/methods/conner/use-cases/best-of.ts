/**
 * Use case 2 (paper section 5, "Knowledge Selection"): given r knowledge texts per query
 * H = {k~_1..k~_r}, keep k = argmax_{k~ in H} Q_know(q, k~) (Eq. 9). The paper draws the r texts
 * by top-p sampling from one model (p = 0.9, r = 5); llmkb takes the r candidates as r generated
 * files (from `conner generate` with different Table 11 prompts, generators or settings, or from
 * elsewhere), recorded as a departure. Each candidate file is scored as a resumable run.
 */
import type { GeneratedKnowledge } from '../generation/generate-knowledge.js';
import { scoreKnowledge, settingLabel, type ScoreOptions, type ScoredKnowledge } from '../scoring/score-knowledge.js';
import { knowledgeQuality, type Gamma } from './knowledge-quality.js';

export interface BestOfChoice {
  /** The chosen knowledge record, as `conner score` takes it; generator and setting name the selection. */
  chosen: GeneratedKnowledge;
  /** Index (0-based) of the candidate file the chosen knowledge came from. */
  candidate: number;
  /** Q_know of each candidate, in file order (null: no candidate for this query in that file). */
  qualities: Array<number | null>;
}

export async function bestOf(candidates: ReadonlyArray<readonly GeneratedKnowledge[]>, options: Omit<ScoreOptions, 'items'> & { gamma: Gamma }): Promise<BestOfChoice[]> {
  const scored: Array<Map<string, ScoredKnowledge>> = [];
  for (let c = 0; c < candidates.length; c++) {
    const rs = await scoreKnowledge({ ...options, items: candidates[c]!, label: `conner best-of candidate ${c + 1}` });
    scored.push(new Map(rs.map((r) => [r.id, r])));
  }
  const byId = candidates.map((file) => new Map(file.map((k) => [k.id, k])));
  // The chosen knowledge is one system: "best of r" over the candidates' generators and settings.
  const unique = (xs: string[]): string => [...new Set(xs)].join(' + ');
  const label = {
    generator: unique(candidates.flatMap((f) => f.map((k) => k.generator))),
    setting: `best-of ${candidates.length} (${unique(candidates.flatMap((f) => f.map((k) => settingLabel(k))))})`,
  };
  const ids = [...new Set(candidates.flatMap((file) => file.map((k) => k.id)))];
  return ids.map((id) => {
    const qualities = scored.map((m) => {
      const r = m.get(id);
      return r === undefined ? null : knowledgeQuality(r, options.gamma).q;
    });
    let best = -1;
    // First file wins ties: the order of --input decides, never chance.
    qualities.forEach((q, c) => {
      if (q !== null && (best === -1 || q > qualities[best]!)) best = c;
    });
    const chosen = byId[best]!.get(id)!;
    return { chosen: { ...chosen, generator: label.generator, setting: label.setting }, candidate: best, qualities };
  });
}
