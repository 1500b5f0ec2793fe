/**
 * The public source files SeenQA, UnseenQA and the few-shot repositories are built from: where
 * each lives (a URL pinned to a commit, so it never changes under us), its SHA-256, its licence,
 * and how to read it. `resolveSourceFile` finds a local copy (`--data-dir` / $LLMKB_DATA_DIR:
 * nothing is downloaded) or downloads into the cache and verifies the checksum.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_CODES, LlmkbError } from '../../../errors.js';
import { sha256 } from '../../../io/checksum.js';
import { makeFolder, writeFileAtomic } from '../../../io/files.js';

export interface SourceFile {
  /** File name in a data directory (and in the download cache). */
  name: string;
  url: string;
  sha256: string;
  licence: string;
  description: string;
}

const ANSERINI = 'https://raw.githubusercontent.com/castorini/anserini-tools/5b819c1a45c8a0a3ec9426f476694f44a29dfaf3/topics';
const OLYMPICS = 'https://raw.githubusercontent.com/farr13/Olympic-Data-Parsing-Cleaning/db2d6923f75653b5e5c873f51afc8b8a172a0fec/paris';

export const SOURCE_FILES = {
  nqEval: {
    name: 'NQ-open.dev.jsonl',
    url: 'https://raw.githubusercontent.com/google-research-datasets/natural-questions/fb26a3073b1fe636c97302890a27b491d6530130/nq_open/NQ-open.dev.jsonl',
    sha256: 'f15567f38099f3615f5b8a685c0aef449c11ad90d3da3735e8d1b98115b40616',
    licence: 'CC BY-SA 3.0 (Natural Questions)',
    description: 'NQ-open evaluation split (3,610 questions; = DPR nq-test)',
  },
  nqPool: {
    name: 'nq_open_dpr_dev.topics.nq.dev.tsv',
    url: `${ANSERINI}/topics.nq.dev.txt`,
    sha256: '9c168e4eb4006fa7cc44b67a1e903767a2a9f8b70e24110f3d1aa78561f03774',
    licence: 'Natural Questions CC BY-SA 3.0; DPR split CC BY-NC 4.0',
    description: 'DPR NQ dev split, held out from NQ-open train (few-shot pool)',
  },
  triviaqaEval: {
    name: 'triviaqa_open_test.topics.dpr.trivia.test.tsv',
    url: `${ANSERINI}/topics.dpr.trivia.test.txt`,
    sha256: '041ed9ddd2977c7fe452d290cf60e1f7e0a803977b0f912e234d218261c10e57',
    licence: 'TriviaQA (licence unknown, research use); DPR split CC BY-NC 4.0',
    description: 'TriviaQA open-domain test set (11,313 questions, Wikipedia aliases)',
  },
  triviaqaPool: {
    name: 'triviaqa_open_dev.topics.dpr.trivia.dev.tsv',
    url: `${ANSERINI}/topics.dpr.trivia.dev.txt`,
    sha256: '79e7ea851bb5ca6ebbfd6c760d032064d324166d46b8ffaf70e0fb733186ed2a',
    licence: 'TriviaQA (licence unknown, research use); DPR split CC BY-NC 4.0',
    description: 'TriviaQA DPR dev split, held out from train (few-shot pool)',
  },
  popqa: {
    name: 'popqa_dev1000_test1000.model_collaboration.json',
    url: 'https://raw.githubusercontent.com/BunsenFeng/model_collaboration/ecea545acdd3f49e9f9fa46a6dedcb076ed476b1/model_collaboration/data/popqa.json',
    sha256: '5f6cc194178b8cc4af39412aa051c1a5613d35bd1f5eae02a4aecb847735d089',
    licence: 'PopQA MIT (repository LGPL-3.0)',
    description: 'PopQA random subset, 2,000 questions with popularity',
  },
  popqaLongtail: {
    name: 'popqa_longtail.ctrla.jsonl',
    url: 'https://raw.githubusercontent.com/HSLiu-Initial/CtrlA/6e1f5f3e2e4b4673f3b07f7de6771f9871b22bcb/eval_data/popqa_longtail.jsonl',
    sha256: '4ee4fa46bc6c382a86679e9156ddc1d9fa06f8e07421ed71598ea640262a9c00',
    licence: 'PopQA MIT (repository Apache-2.0)',
    description: 'PopQA long-tail subset (1,399 questions, subject popularity < 100)',
  },
  nocs: {
    name: 'paris2024_nocs.csv',
    url: `${OLYMPICS}/nocs.csv`,
    sha256: 'e00bad8cdf5be6a7150db4d9945f74eb970e3c9f46de23272b52db528431aa4c',
    licence: 'none stated (olympics.com via Kaggle "Paris 2024 Olympic Summer Games"); factual list',
    description: 'National Olympic Committees at Paris 2024',
  },
  events: {
    name: 'paris2024_events.csv',
    url: `${OLYMPICS}/events.csv`,
    sha256: '1c400a115b305aa9fea652108e87f37b8c0c2b7cff86f83e17c86ff6b10517b3',
    licence: 'none stated (olympics.com via Kaggle "Paris 2024 Olympic Summer Games"); factual list',
    description: 'Paris 2024 medal events (329)',
  },
} as const satisfies Record<string, SourceFile>;

export type SourceFileKey = keyof typeof SOURCE_FILES;

export interface ResolvedSource {
  file: SourceFile;
  path: string;
  sha256: string;
  /** Where it came from: a local data directory, the download cache, or a fresh download. */
  origin: 'local' | 'cache' | 'download';
  /** A local copy whose checksum differs from the pinned one (a different version). */
  checksumDiffers: boolean;
}

export class DataSourceError extends LlmkbError {}

export interface ResolveOptions {
  /** Local copies; when set nothing is downloaded. */
  dataDir?: string;
  /** Download cache (files go to `<cacheDir>/data`). */
  cacheDir: string;
  fetchImpl?: typeof fetch;
}

/**
 * The local copy of a source file in a data directory, which must hold it: with a data directory
 * nothing is downloaded.
 */
export function localSourcePath(file: SourceFile, dataDir: string): string {
  const path = join(dataDir, file.name);
  if (!existsSync(path)) {
    throw new DataSourceError(`${path} not found (data directory given, so nothing is downloaded)`, {
      hint: `Put ${file.name} there (from ${file.url}), or drop --data-dir / LLMKB_DATA_DIR to download it.`,
      exitCode: EXIT_CODES.fileAccess,
    });
  }
  return path;
}

export async function resolveSourceFile(file: SourceFile, options: ResolveOptions): Promise<ResolvedSource> {
  if (options.dataDir !== undefined) {
    const path = localSourcePath(file, options.dataDir);
    const sum = sha256(readFileSync(path));
    return { file, path, sha256: sum, origin: 'local', checksumDiffers: sum !== file.sha256 };
  }
  const dir = join(options.cacheDir, 'data');
  const path = join(dir, file.name);
  if (existsSync(path)) {
    const sum = sha256(readFileSync(path));
    if (sum === file.sha256) return { file, path, sha256: sum, origin: 'cache', checksumDiffers: false };
  }
  makeFolder(dir);
  const fetchImpl = options.fetchImpl ?? fetch;
  let body: Buffer;
  try {
    const response = await fetchImpl(file.url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = Buffer.from(await response.arrayBuffer());
  } catch (error) {
    throw new DataSourceError(`could not download ${file.name} from ${file.url}: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'Check the network, or download the file yourself and pass its folder with --data-dir (or LLMKB_DATA_DIR).',
      exitCode: EXIT_CODES.model,
      cause: error,
    });
  }
  const sum = sha256(body);
  if (sum !== file.sha256) {
    throw new DataSourceError(`download of ${file.name} is corrupt or truncated: SHA-256 ${sum} (${body.length} bytes), expected ${file.sha256}`, {
      hint: 'Nothing was saved. Try again; if it persists the file changed upstream: report it, or pass a local copy with --data-dir.',
      exitCode: EXIT_CODES.model,
    });
  }
  writeFileAtomic(path, body);
  return { file, path, sha256: sum, origin: 'download', checksumDiffers: false };
}
