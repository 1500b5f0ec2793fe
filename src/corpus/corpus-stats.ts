/** What the store holds of its corpora: the list with their sizes, and one corpus's statistics. */
import type { Db } from '../store/database.js';
import { ensureCorpusSchema, type CorpusRef, type CorpusSettings } from './corpus-schema.js';
import { unfinishedAdds, type UnfinishedAdd } from './unfinished-adds.js';

export interface CorpusInfo {
  name: string;
  createdAt: string;
  settings: CorpusSettings;
  sources: number;
  documents: number;
  passages: number;
  /** Adds that are running or were killed: the corpus may hold only part of their files. */
  unfinishedAdds: UnfinishedAdd[];
}

export interface CorpusStats extends CorpusInfo {
  /** Characters of document text. */
  chars: number;
  pages: number;
  bytes: number;
  formats: Record<string, number>;
  /** Words per passage: mean and maximum. */
  passageWordsMean: number;
  passageWordsMax: number;
}

/** The corpora of the store (local ones), by name. */
export function listCorpora(db: Db): CorpusInfo[] {
  ensureCorpusSchema(db);
  const rows = db
    .prepare(`
    SELECT c.id, c.name, c.created_at, c.settings,
      (SELECT COUNT(*) FROM corpus_sources s WHERE s.corpus_id = c.id AND s.file_hash IS NOT NULL) AS sources,
      (SELECT COUNT(*) FROM corpus_documents d WHERE d.corpus_id = c.id) AS documents,
      (SELECT COALESCE(SUM(d.passages), 0) FROM corpus_documents d WHERE d.corpus_id = c.id) AS passages
    FROM corpora c ORDER BY c.name`)
    .all() as { id: number; name: string; created_at: string; settings: string; sources: number; documents: number; passages: number }[];
  return rows.map((r) => ({
    name: r.name,
    createdAt: r.created_at,
    settings: JSON.parse(r.settings) as CorpusSettings,
    sources: r.sources,
    documents: r.documents,
    passages: r.passages,
    unfinishedAdds: unfinishedAdds(db, r.id),
  }));
}

export function corpusStats(corpus: CorpusRef): CorpusStats {
  const { db, id } = corpus;
  const info = listCorpora(db).find((c) => c.name === corpus.name)!;
  const docs = db.prepare('SELECT COALESCE(SUM(chars), 0) AS chars, COALESCE(SUM(pages), 0) AS pages FROM corpus_documents WHERE corpus_id = ?').get(id) as {
    chars: number;
    pages: number;
  };
  const words = db
    .prepare(
      'SELECT COALESCE(AVG(p.words), 0) AS mean, COALESCE(MAX(p.words), 0) AS max FROM corpus_passages p JOIN corpus_documents d ON d.id = p.document_id WHERE d.corpus_id = ?',
    )
    .get(id) as { mean: number; max: number };
  const sources = db
    .prepare(
      'SELECT format, COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS bytes FROM corpus_sources WHERE corpus_id = ? AND file_hash IS NOT NULL GROUP BY format ORDER BY format',
    )
    .all(id) as { format: string; n: number; bytes: number }[];
  return {
    ...info,
    chars: docs.chars,
    pages: docs.pages,
    bytes: sources.reduce((a, s) => a + s.bytes, 0),
    formats: Object.fromEntries(sources.map((s) => [s.format, s.n])),
    passageWordsMean: words.mean,
    passageWordsMax: words.max,
  };
}
