/**
 * A named document corpus in the workspace database: opened, created and removed here; its
 * tables are described in corpus-schema.ts, adding files in corpus-ingest.ts, search in
 * corpus-search.ts, sizes in corpus-stats.ts.
 */
import { LlmkbError } from '../errors.js';
import { CORPUS_CACHE_KIB, raiseCacheSize, type Db } from '../store/database.js';
import { dropBm25Bounds } from './bm25-bounds.js';
import type { Bm25Plan } from './bm25-top-k.js';
import { addToCorpus, type AddOptions, type AddReport } from './corpus-ingest.js';
import { checkCorpusName, ensureCorpusSchema, ftsTableOf, type CorpusRef, type CorpusSettings } from './corpus-schema.js';
import { hitsFor, retrievePassages, searchIds, searchPassages, searchPlan, type RetrieveOptions, type SearchHit, type SearchOptions } from './corpus-search.js';
import { corpusStats, listCorpora, type CorpusInfo, type CorpusStats } from './corpus-stats.js';
import { EMBEDDER_SCHEMA, embedPassages, ensureVectorTable, resetVectors, vectorTable, type EmbedProgress, type Embedder } from './dense-index.js';
import { queryTokens } from './fts-query.js';
import { DEFAULT_OVERLAP_WORDS, DEFAULT_PASSAGE_WORDS } from './passages.js';
import { unfinishedAdds, type UnfinishedAdd } from './unfinished-adds.js';

export class CorpusNotFoundError extends LlmkbError {
  constructor(name: string, known: readonly string[]) {
    super(`no corpus named "${name}"${known.length > 0 ? ` (corpora: ${known.join(', ')})` : ' (the store has no corpora yet)'}`, {
      hint: 'Create it with `llmkb corpus add NAME PATH...`; `llmkb corpus list` shows the corpora.',
    });
  }
}

interface CorpusRow {
  id: number;
  name: string;
  created_at: string;
  settings: string;
}

/** A passage with its document, as `data from-corpus` samples them. */
export interface StoredPassage {
  id: number;
  /** 0-based passage number within the document. */
  seq: number;
  page: number;
  pageEnd: number;
  start: number;
  end: number;
  words: number;
  text: string;
  docId: string;
  /** The file the document was read from. */
  source: string;
  /** The document's metadata (other CSV columns or JSON fields, a PDF's info). */
  metadata: Record<string, unknown>;
}

function parseMetadata(json: string): Record<string, unknown> {
  try {
    const value = JSON.parse(json) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A named document corpus in a workspace database. */
export class Corpus implements CorpusRef {
  readonly db: Db;
  readonly name: string;
  readonly id: number;
  readonly settings: CorpusSettings;
  readonly createdAt: string;

  private constructor(db: Db, row: CorpusRow) {
    raiseCacheSize(db, CORPUS_CACHE_KIB);
    this.db = db;
    this.name = row.name;
    this.id = row.id;
    this.createdAt = row.created_at;
    this.settings = JSON.parse(row.settings) as CorpusSettings;
  }

  get ftsTable(): string {
    return ftsTableOf(this.id);
  }

  /** The corpus named `name`; throws CorpusNotFoundError when there is none. */
  static open(db: Db, name: string): Corpus {
    ensureCorpusSchema(db);
    const row = db.prepare('SELECT id, name, created_at, settings FROM corpora WHERE name = ?').get(name) as CorpusRow | undefined;
    if (row === undefined)
      throw new CorpusNotFoundError(
        name,
        Corpus.list(db).map((c) => c.name),
      );
    return new Corpus(db, row);
  }

  /**
   * The corpus named `name`, created with `settings` if it does not exist. An existing corpus
   * keeps the passage settings it was built with: asking for others is an error.
   */
  static openOrCreate(db: Db, name: string, settings: Partial<CorpusSettings> = {}): Corpus {
    ensureCorpusSchema(db);
    checkCorpusName(name);
    const existing = db.prepare('SELECT id, name, created_at, settings FROM corpora WHERE name = ?').get(name) as CorpusRow | undefined;
    if (
      existing === undefined &&
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'corpus_remotes'").get() !== undefined &&
      db.prepare('SELECT 1 FROM corpus_remotes WHERE name = ?').get(name) !== undefined
    ) {
      throw new LlmkbError(`corpus "${name}" is a remote index (\`llmkb corpus add-remote\`): files cannot be added to it here`, {
        hint: 'Index the files in the cluster, or use another corpus name for local passages.',
      });
    }
    if (existing !== undefined) {
      const corpus = new Corpus(db, existing);
      for (const key of ['passageWords', 'overlapWords', 'stemming'] as const) {
        if (settings[key] !== undefined && settings[key] !== corpus.settings[key]) {
          throw new LlmkbError(`corpus "${name}" was built with ${key} = ${String(corpus.settings[key])}, not ${String(settings[key])}`, {
            hint: 'Passage settings are fixed per corpus: use another corpus name, or `llmkb corpus remove` it and add the files again.',
          });
        }
      }
      return corpus;
    }
    const full: CorpusSettings = {
      passageWords: settings.passageWords ?? DEFAULT_PASSAGE_WORDS,
      overlapWords: settings.overlapWords ?? Math.min(DEFAULT_OVERLAP_WORDS, Math.floor((settings.passageWords ?? DEFAULT_PASSAGE_WORDS) / 5)),
      stemming: settings.stemming ?? true,
    };
    if (!Number.isInteger(full.passageWords) || full.passageWords < 5)
      throw new LlmkbError(`passage words must be an integer of at least 5, not ${full.passageWords}`, {
        hint: `Give --passage-words 5 or more (default ${DEFAULT_PASSAGE_WORDS}).`,
      });
    if (!Number.isInteger(full.overlapWords) || full.overlapWords < 0 || full.overlapWords >= full.passageWords) {
      throw new LlmkbError(`overlap words must be an integer from 0 to ${full.passageWords - 1} (less than the passage words), not ${full.overlapWords}`, {
        hint: `Give --overlap-words below --passage-words (${full.passageWords} here; the default overlap is ${DEFAULT_OVERLAP_WORDS} words of ${DEFAULT_PASSAGE_WORDS}), or a larger --passage-words.`,
      });
    }
    const create = db.transaction(() => {
      const id = Number(
        db.prepare('INSERT INTO corpora (name, created_at, settings) VALUES (?, ?, ?)').run(name, new Date().toISOString(), JSON.stringify(full))
          .lastInsertRowid,
      );
      const tokenize = full.stemming ? 'porter unicode61 remove_diacritics 2' : 'unicode61 remove_diacritics 2';
      ensureVectorTable(db, id);
      db.exec(`CREATE VIRTUAL TABLE ${ftsTableOf(id)} USING fts5(text, content='corpus_passages', content_rowid='id', tokenize='${tokenize}')`);
      return id;
    });
    create();
    return Corpus.open(db, name);
  }

  static list(db: Db): CorpusInfo[] {
    return listCorpora(db);
  }

  /** Removes a corpus and everything in it; false when there was none. */
  static remove(db: Db, name: string): boolean {
    ensureCorpusSchema(db);
    const row = db.prepare('SELECT id FROM corpora WHERE name = ?').get(name) as { id: number } | undefined;
    if (row === undefined) return false;
    db.transaction(() => {
      db.exec(`DROP TABLE IF EXISTS ${ftsTableOf(row.id)}`);
      db.exec(`DROP TABLE IF EXISTS ${vectorTable(row.id)}`);
      db.exec(EMBEDDER_SCHEMA);
      db.prepare('DELETE FROM corpus_embedders WHERE corpus_id = ?').run(row.id);
      dropBm25Bounds(db, row.id);
      db.prepare('DELETE FROM corpus_passages WHERE document_id IN (SELECT id FROM corpus_documents WHERE corpus_id = ?)').run(row.id);
      db.prepare('DELETE FROM corpus_documents WHERE corpus_id = ?').run(row.id);
      db.prepare('DELETE FROM corpus_sources WHERE corpus_id = ?').run(row.id);
      db.prepare('DELETE FROM corpora WHERE id = ?').run(row.id);
    })();
    return true;
  }

  /** Adds files and folders (recursively) to the corpus, streaming, incrementally (see corpus-ingest.ts). */
  add(paths: readonly string[], options: AddOptions = {}): Promise<AddReport> {
    return addToCorpus(this, paths, options);
  }

  /** BM25 search: the `k` best passages for a natural-language query (see corpus-search.ts). */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    return searchPassages(this, query, options);
  }

  /** Search in any mode: bm25, dense or hybrid (see corpus-search.ts). */
  retrieve(query: string, options: RetrieveOptions = {}): Promise<SearchHit[]> {
    return retrievePassages(this, query, options);
  }

  /** Embeds the passages that have no vector yet (see dense-index.ts). */
  embed(embedder: Embedder, options: { batch?: number; onProgress?: (p: EmbedProgress) => void } = {}): Promise<{ embedded: number; total: number }> {
    return embedPassages(this.db, this.id, this.name, embedder, options);
  }

  /** Drops the corpus's vectors (to embed it with another model). */
  resetVectors(): void {
    resetVectors(this.db, this.id);
  }

  /** The query terms the search uses (see fts-query.ts). */
  searchTerms(query: string): string[] {
    return queryTokens(query);
  }

  /** How the search evaluates a query (the rarest terms, the rest, rounds; see bm25-top-k.ts). */
  searchPlan(query: string, k: number): Bm25Plan {
    return searchPlan(this, query, k);
  }

  /** Ranked passage rowids with their BM25 scores (higher is better): the search without the passage rows. */
  searchIds(query: string, k: number, options: { exhaustive?: boolean } = {}): Array<{ id: number; score: number }> {
    return searchIds(this, query, k, options);
  }

  /** The passages of the given rowids, in the given order, with their scores. */
  hitsFor(ranked: ReadonlyArray<{ id: number; score: number }>): SearchHit[] {
    return hitsFor(this.db, ranked);
  }

  /** The row ids of the passages of at least `minWords` words, in id order. */
  passageIds(minWords = 0): number[] {
    return (
      this.db
        .prepare('SELECT p.id FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id WHERE d.corpus_id = ? AND p.words >= ? ORDER BY p.id')
        .raw(true)
        .all(this.id, minWords) as [number][]
    ).map((r) => r[0]);
  }

  /** One passage of this corpus with its document, or undefined. */
  passage(id: number): StoredPassage | undefined {
    const r = this.db
      .prepare(
        'SELECT p.id, p.seq, p.page, p.page_end, p.start, p.end, p.words, p.text, d.doc_id, s.path, d.metadata FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id JOIN corpus_sources s ON s.id = d.source_id WHERE p.id = ? AND d.corpus_id = ?',
      )
      .get(id, this.id) as
      | {
          id: number;
          seq: number;
          page: number;
          page_end: number;
          start: number;
          end: number;
          words: number;
          text: string;
          doc_id: string;
          path: string;
          metadata: string;
        }
      | undefined;
    if (r === undefined) return undefined;
    return {
      id: r.id,
      seq: r.seq,
      page: r.page,
      pageEnd: r.page_end,
      start: r.start,
      end: r.end,
      words: r.words,
      text: r.text,
      docId: r.doc_id,
      source: r.path,
      metadata: parseMetadata(r.metadata),
    };
  }

  /** The metadata of every document of the corpus, one at a time. */
  *documentMetadata(): Generator<Record<string, unknown>> {
    for (const [json] of this.db.prepare('SELECT metadata FROM corpus_documents WHERE corpus_id = ? ORDER BY id').raw(true).iterate(this.id) as Iterable<
      [string]
    >)
      yield parseMetadata(json);
  }

  /** Adds of this corpus that are running or were killed (see unfinished-adds.ts). */
  unfinishedAdds(): UnfinishedAdd[] {
    return unfinishedAdds(this.db, this.id);
  }

  stats(): CorpusStats {
    return corpusStats(this);
  }
}

/** One-call search: the `k` best passages of corpus `name` in the database `db`. */
export function searchCorpus(db: Db, name: string, query: string, options: SearchOptions = {}): SearchHit[] {
  return Corpus.open(db, name).search(query, options);
}
