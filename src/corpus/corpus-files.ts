/**
 * Finding the files of a corpus: the files of the paths given (folders walked, hidden entries and
 * symbolic links skipped), each with its format (from the extension, and from the content for
 * other names: `%PDF-` -> PDF, a first character `{` -> JSONL, otherwise text when the file has no
 * NUL byte) and its document name.
 */
import { openSync, readdirSync, readSync, closeSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileAccessError, InputFileError } from '../errors.js';

export type CorpusFormat = 'csv' | 'tsv' | 'jsonl' | 'json' | 'text' | 'pdf';

export interface CorpusFile {
  /** Absolute path. */
  path: string;
  /** The document id of a one-document file: its path relative to the folder given (or its name). */
  name: string;
  format: CorpusFormat;
}

const EXTENSIONS: Record<string, CorpusFormat> = {
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.tab': 'tsv',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.json': 'json',
  '.txt': 'text',
  '.text': 'text',
  '.md': 'text',
  '.markdown': 'text',
  '.rst': 'text',
  '.pdf': 'pdf',
};

function head(path: string, bytes = 8192): Buffer {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n);
  } catch (error) {
    throw fileAccessError(path, error, 'read');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The format of a file: from its content when it is a PDF or the extension is unknown, else from the extension. */
export function detectFormat(path: string): CorpusFormat | undefined {
  const start = head(path);
  if (start.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  const byExtension = EXTENSIONS[extname(path).toLowerCase()];
  if (byExtension !== undefined) return byExtension;
  if (start.includes(0)) return undefined;
  const text = start
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  return text.startsWith('{') ? 'jsonl' : 'text';
}

/** The deepest folder holding all the given absolute paths. */
function commonFolder(paths: readonly string[]): string {
  const parts = paths.map((p) => p.split(sep));
  let n = 0;
  while (parts.every((p) => n < p.length && p[n] === parts[0]![n])) n += 1;
  return parts[0]!.slice(0, n).join(sep) || sep;
}

/**
 * The files of the given paths: a file as given (its format detected from content when the
 * extension is unknown), a folder recursively (files with a known extension; hidden files and
 * folders skipped), sorted. `ignored` lists the files of folders with no known format (and
 * entries that are neither files nor folders), `symlinks` the symbolic links in the folders, which
 * are not followed (a link may lead out of the folder, or back into it); a path given by the user
 * is followed, link or not.
 *
 * A one-document file is named by its path relative to the folder given (a file given by name:
 * its name). Files of different folders that would get the same name (`a/same.txt` and
 * `b/same.txt` given as `a b`) are named by their paths relative to the deepest folder holding
 * those folders instead (`a/same.txt`, `b/same.txt`), so that each document id is unique.
 */
export function listCorpusFiles(paths: readonly string[]): { files: CorpusFile[]; ignored: string[]; symlinks: string[] } {
  const files: CorpusFile[] = [];
  const roots = new Map<CorpusFile, string>(); // the folder a file's name is relative to
  const seen = new Set<string>(); // a file given twice (or inside two given folders) is read once
  const ignored: string[] = [];
  const symlinks: string[] = [];
  for (const given of paths) {
    const root = resolve(given);
    let stat;
    try {
      stat = statSync(root);
    } catch (error) {
      throw fileAccessError(root, error, 'read', 'file or folder');
    }
    if (!stat.isDirectory()) {
      const format = detectFormat(root);
      if (format === undefined)
        throw new InputFileError(
          given,
          undefined,
          undefined,
          'not a corpus file: binary content and no known extension',
          'Give CSV/TSV, JSON/JSONL, text/Markdown or PDF files.',
        );
      if (!seen.has(root)) {
        seen.add(root);
        const file: CorpusFile = { path: root, name: basename(root), format };
        files.push(file);
        roots.set(file, dirname(root));
      }
      continue;
    }
    const walk = (dir: string): void => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch (error) {
        throw fileAccessError(dir, error, 'read', 'folder');
      }
      for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (entry.name.startsWith('.')) continue;
        const full = join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isSymbolicLink()) symlinks.push(full);
        else if (!entry.isFile()) ignored.push(full);
        else {
          const byExtension = EXTENSIONS[extname(entry.name).toLowerCase()];
          if (byExtension === undefined) {
            ignored.push(full);
            continue;
          }
          if (!seen.has(full)) {
            seen.add(full);
            const file: CorpusFile = { path: full, name: relative(root, full), format: detectFormat(full) === 'pdf' ? 'pdf' : byExtension };
            files.push(file);
            roots.set(file, root);
          }
        }
      }
    };
    walk(root);
  }
  const byName = new Map<string, CorpusFile[]>();
  for (const f of files) byName.set(f.name, [...(byName.get(f.name) ?? []), f]);
  for (const same of byName.values()) {
    if (same.length < 2) continue;
    const folder = commonFolder(same.map((f) => roots.get(f)!));
    for (const f of same) f.name = relative(folder, f.path);
  }
  return { files, ignored, symlinks };
}
