/**
 * `addFiles`: files and folders added to a corpus by name, the corpus created when there is none
 * (what `llmkb corpus add` runs; the command prints the report). A corpus this call creates is
 * never left behind empty: when the add fails before any document is in it, or the files hold no
 * text to index, it is removed and the error says it was not created (a later search would
 * otherwise find nothing, silently). Files read without error that gave no text are returned in
 * `textless`, for the caller to say.
 */
import { LlmkbError } from '../errors.js';
import type { Db } from '../store/database.js';
import { Corpus } from './corpus.js';
import { CorpusAddError } from './corpus-add-error.js';
import type { AddOptions, AddReport } from './corpus-ingest.js';
import type { CorpusSettings } from './corpus-schema.js';

export interface AddFilesOptions extends AddOptions, Partial<CorpusSettings> {}

export interface AddFilesResult {
  corpus: Corpus;
  /** The corpus did not exist and this call made it. */
  created: boolean;
  report: AddReport;
  /** Files read without error that gave no text (empty, only a header, or documents without text). */
  textless: string[];
}

/** Adds `paths` to corpus `name` (made with `options`' passage settings when new); see the module's comment. */
export async function addFiles(db: Db, name: string, paths: readonly string[], options: AddFilesOptions = {}): Promise<AddFilesResult> {
  const { passageWords, overlapWords, stemming, ...add } = options;
  const created = !Corpus.list(db).some((c) => c.name === name);
  const corpus = Corpus.openOrCreate(db, name, {
    ...(passageWords === undefined ? {} : { passageWords }),
    ...(overlapWords === undefined ? {} : { overlapWords }),
    ...(stemming === undefined ? {} : { stemming }),
  });
  const textless: string[] = [];
  const report = await corpus
    .add(paths, {
      ...add,
      onFile: (file, r) => {
        if (r.status !== 'skipped' && r.passages === 0) textless.push(file);
        add.onFile?.(file, r);
      },
    })
    .catch((error: unknown) => {
      if (created && Corpus.list(db).find((x) => x.name === name)?.documents === 0) {
        Corpus.remove(db, name);
        if (error instanceof CorpusAddError)
          throw new LlmkbError(error.message, {
            hint: `${error.fileHint === undefined ? '' : `${error.fileHint} `}Corpus "${name}" was not created.`,
            exitCode: error.exitCode,
            cause: error.cause,
          });
      }
      throw error;
    });
  if (created && report.passages === 0) {
    Corpus.remove(db, name);
    const unread = report.skipped.map((s) => `${s.file} (${s.reason})`);
    const empty =
      textless.length > 0 || unread.length === 0
        ? `${textless.length > 0 ? textless.join(', ') : paths.join(', ')} (empty file${textless.length === 1 ? '' : 's'}, only a header, or documents without text)`
        : undefined;
    throw new LlmkbError(
      `no text to index in ${[empty, unread.length > 0 ? `${unread.join(', ')}: PDF${unread.length === 1 ? '' : 's'} that could not be read` : undefined].filter((x) => x !== undefined).join('; ')}`,
      {
        hint: `Give files with text: PDFs with a text layer (decrypt encrypted ones, e.g. \`qpdf --decrypt\`; run OCR on scans, e.g. \`ocrmypdf\`), .txt/.md, CSV with filename,article (or --text-column), JSONL with --text-field. Corpus "${name}" was not created.`,
      },
    );
  }
  return { corpus, created, report, textless };
}
