/**
 * Where factuality and validity get their evidence (paper section 3.3: evidence E_i recalled for
 * each sentence s_i from a knowledge base). Two sources: the passages of a corpus in the store,
 * searched with BM25 using the sentence as the query (the paper used ColBERTv2 over Wikipedia;
 * recorded as a departure), or reference passages given with the query (the gold knowledge of
 * CONNER's test files: the paper's Appendix B shows reference knowledge suffices).
 */
import { remoteCorpus, retrieverFor, searchCorpus } from '../../../corpus/index.js';
import type { Db } from '../../../store/database.js';
import { MAX_PREMISES, type ReferencePremises } from '../conner-choices.js';
import { splitSentences } from './sentences.js';

export interface Evidence {
  /** `corpus:<name>/<doc id>#<passage>` or `reference`. */
  source: string;
  text: string;
}

export interface EvidenceSource {
  /** Recorded in every record, e.g. `corpus:wiki (bm25, top 5)` or `reference`. */
  readonly id: string;
  /**
   * Evidence for one claim (a sentence, or an open-ended answer); `reference` is the query's gold
   * knowledge; `item`, the whole knowledge text the claim is from, for a source that retrieves one
   * list per item.
   */
  retrieve(claim: string, reference: readonly string[], item?: string): Evidence[] | Promise<Evidence[]>;
}

/**
 * The query's reference passages as evidence. `passage`: each passage whole. `sentences`: each
 * passage's sentences, then the passage whole, the first MAX_PREMISES of them (the authors'
 * src/eval_exp.py); a sentence's source says which one it is (`reference, sentence 3`).
 */
export function referenceEvidence(premises: ReferencePremises = 'passage'): EvidenceSource {
  return {
    id: 'reference',
    retrieve: (_claim, reference) => {
      const passages = reference.filter((r) => r.trim() !== '');
      if (premises === 'passage') return passages.map((text) => ({ source: 'reference', text }));
      return passages
        .flatMap((text) => [...splitSentences(text).map((s, i) => ({ source: `reference, sentence ${i + 1}`, text: s })), { source: 'reference', text }])
        .slice(0, MAX_PREMISES);
    },
  };
}

export function corpusEvidence(db: Db, corpus: string, top: number): EvidenceSource {
  const remote = remoteCorpus(db, corpus);
  if (remote !== undefined) {
    // A corpus registered with `llmkb corpus add-remote`: the index's own ranking, over HTTP.
    const retriever = retrieverFor(db, corpus);
    return {
      id: `corpus:${corpus} (${retriever.description}, top ${top})`,
      retrieve: async (claim) => (await retriever.search(claim, top)).map((hit) => ({ source: `corpus:${corpus}/${hit.docId}`, text: hit.text })),
    };
  }
  return {
    id: `corpus:${corpus} (bm25, top ${top})`,
    retrieve: (claim) => searchCorpus(db, corpus, claim, { k: top }).map((hit) => ({ source: `corpus:${corpus}/${hit.docId}#${hit.passage}`, text: hit.text })),
  };
}

/**
 * The scripts' evidence list (src/eval_exp.py:77-114 under scripts/nq_factuality.sh: IR_num=10,
 * wo_ground_truth_knowledge=False): one list per item, the reference premises (the gold passage's
 * sentences, then the passage whole) followed by the item's retrieved passages, the first
 * MAX_PREMISES pairs kept. The scripts read a precomputed ColBERTv2 list per knowledge text
 * (`<hyp>_IR_docs`, whose query the repository does not show); here the corpus is searched once
 * per item with its knowledge text as the query (a claim without an item: with the claim).
 */
export function goldAndRetrieved(gold: EvidenceSource, retrieved: EvidenceSource): EvidenceSource {
  const perItem = new Map<string, Promise<Evidence[]>>();
  return {
    id: `reference, then ${retrieved.id.replace(/\)$/, '')} per item)`,
    retrieve: async (claim, reference, item) => {
      const query = item ?? claim;
      let hits = perItem.get(query);
      if (hits === undefined) {
        hits = Promise.resolve(retrieved.retrieve(query, reference));
        perItem.set(query, hits);
      }
      return [...(await gold.retrieve(claim, reference)), ...(await hits)].slice(0, MAX_PREMISES);
    },
  };
}
