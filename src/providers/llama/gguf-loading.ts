/**
 * Loading a GGUF model file for node-llama-cpp: resolving `hf:` URIs (downloaded once into the
 * models cache), checking the file is GGUF before handing it to native code, its content hash
 * (the cache identity), and one shared llama.cpp runtime per thread count and GPU setting.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { cpus } from 'node:os';
import type { Llama, LlamaModel as NativeModel } from 'node-llama-cpp';
import { EXIT_CODES, ModelFileError } from '../../errors.js';
import { formatDuration, progressIntervalMs } from '../../progress/progress.js';

const llamaInstances = new Map<string, Promise<Llama>>();

export async function sharedLlama(threads: number, gpu: boolean): Promise<Llama> {
  const key = `${threads}:${gpu}`;
  let instance = llamaInstances.get(key);
  if (!instance) {
    const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
    instance = getLlama({ gpu: gpu ? 'auto' : false, maxThreads: threads, logLevel: LlamaLogLevel.error, progressLogs: false });
    llamaInstances.set(key, instance);
  }
  return instance;
}

/** Content hash of a model file; the cache identity, so a changed file never reuses old answers. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function assertGguf(path: string): Promise<void> {
  let size: number;
  try {
    const s = await stat(path);
    // A path that cannot be read is a file-access error (exit 6, as for any other input file).
    if (!s.isFile()) throw new ModelFileError(`${path} is not a file`, { hint: 'Give the path of a .gguf model file.', exitCode: EXIT_CODES.fileAccess });
    size = s.size;
  } catch (error) {
    if (error instanceof ModelFileError) throw error;
    const denied = (error as { code?: string }).code === 'EACCES';
    throw new ModelFileError(denied ? `model file ${path} cannot be read (permission denied)` : `model file ${path} does not exist`, {
      hint: denied
        ? 'Give yourself read permission on the file and its folders, or copy the model somewhere you can read.'
        : 'Check the path, or use an hf: URI (e.g. hf:owner/repo:Q4_K_M) to download a model into the cache.',
      exitCode: EXIT_CODES.fileAccess,
      cause: error,
    });
  }
  const handle = await open(path, 'r');
  try {
    const magic = Buffer.alloc(4);
    await handle.read(magic, 0, 4, 0);
    if (size < 4 || magic.toString('latin1') !== 'GGUF') {
      throw new ModelFileError(`${path} is not a GGUF model file (it does not start with the GGUF magic bytes)`, {
        hint: 'llmkb runs GGUF files in-process; convert the model with llama.cpp, or serve it with vLLM/Ollama and use a vllm: or ollama: spec.',
      });
    }
  } finally {
    await handle.close();
  }
}

/**
 * The local path of a model: a path as given, or an `hf:` / URL model downloaded into
 * `modelsDir` (node-llama-cpp's resolver; an existing download is reused).
 */
export async function resolveGgufPath(settings: { model: string; modelsDir: string }): Promise<string> {
  let path = settings.model;
  if (path.startsWith('hf:') || /^https?:\/\//.test(path)) {
    const { resolveModelFile } = await import('node-llama-cpp');
    // Offline, the download can wait forever on a connection: give up after a stretch with no
    // progress (not a total limit: a large model on a slow line keeps going while bytes arrive).
    const idleMs = Number(process.env.LLMKB_DOWNLOAD_TIMEOUT_MS) > 0 ? Number(process.env.LLMKB_DOWNLOAD_TIMEOUT_MS) : 60_000;
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let rearm = (): void => {};
    const stalled = new Promise<never>((_, reject) => {
      const arm = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          abort.abort();
          reject(
            new ModelFileError(`no progress downloading ${settings.model} for ${idleMs / 1000} s (offline, or Hugging Face unreachable?)`, {
              hint: 'Check the network (and HF_ENDPOINT / proxy settings), or download the .gguf file yourself and pass its path (gguf:./file.gguf). LLMKB_DOWNLOAD_TIMEOUT_MS sets this time-out.',
              exitCode: 3,
            }),
          );
        }, idleMs);
      };
      arm();
      rearm = arm;
    });
    // Off a TTY node-llama-cpp draws nothing: a line every few seconds says the download is alive.
    const live = process.stderr.isTTY === true && !process.env.CI;
    const log = live ? undefined : downloadLog(settings.model);
    try {
      await assertReachable(downloadUrl(path), settings.model);
      path = await Promise.race([
        resolveModelFile(path, {
          directory: settings.modelsDir,
          cli: live,
          signal: abort.signal,
          onProgress: (status) => {
            rearm();
            log?.update(status);
          },
        }),
        stalled,
      ]);
    } catch (error) {
      if (error instanceof ModelFileError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      // A URI that names nothing (HTTP 401/403/404, no such file in the repo) is the user's input
      // (exit 2); anything else (DNS, refused or reset connections, 5xx) is the model's source not
      // being reachable (exit 3, like a model server that is down).
      const badUri = /\b(400|401|403|404)\b|not found|no such|invalid|does not exist/i.test(message);
      throw new ModelFileError(`could not download ${settings.model}: ${message}`, {
        hint: badUri
          ? 'Check the URI (hf:owner/repo:QUANT or hf:owner/repo/file.gguf), or download the file yourself and pass its path.'
          : 'Check the network (and HF_ENDPOINT / proxy settings), or download the file yourself and pass its path (gguf:./file.gguf).',
        cause: error,
        ...(badUri ? {} : { exitCode: 3 }),
      });
    } finally {
      clearTimeout(timer);
      log?.stop();
    }
  }
  return path;
}

/** Where a model URI is downloaded from: the URL itself, or the Hugging Face endpoint node-llama-cpp uses. */
function downloadUrl(uri: string): URL {
  if (/^https?:\/\//.test(uri)) return new URL(uri);
  return new URL(process.env.MODEL_ENDPOINT || process.env.HF_ENDPOINT || 'https://huggingface.co/');
}

/** Connection errors that will not go away by waiting (the downloader would retry them until the stall time-out). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/**
 * A refused connection or an unknown host fails at once instead of after the stall time-out.
 * A connection that is merely slow is left to the download (and its stall time-out).
 */
async function assertReachable(url: URL, model: string): Promise<void> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const code = await new Promise<string | undefined>((resolve) => {
    const socket = connect({ host: url.hostname, port });
    const done = (result: string | undefined): void => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(3000, () => done(undefined));
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code));
  });
  if (code !== undefined && UNREACHABLE.has(code)) {
    throw new ModelFileError(`could not download ${model}: ${url.host} is unreachable (${code})`, {
      hint: 'Check the network (and HF_ENDPOINT / proxy settings), or download the .gguf file yourself and pass its path (gguf:./file.gguf).',
      exitCode: 3,
    });
  }
}

/** `downloading MODEL  12.5/150.0 MB (8.3%)  2.1 MB/s  ETA 1:05` on stderr every progress interval. */
function downloadLog(model: string): { update: (status: { totalSize: number; downloadedSize: number }) => void; stop: () => void } {
  const started = performance.now();
  let last = { totalSize: 0, downloadedSize: 0 };
  const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);
  const timer = setInterval(() => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? last.downloadedSize / seconds : 0;
    const total = last.totalSize > 0 ? `/${mb(last.totalSize)} MB (${((100 * last.downloadedSize) / last.totalSize).toFixed(1)}%)` : ' MB';
    const eta = last.totalSize > 0 && rate > 0 ? (last.totalSize - last.downloadedSize) / rate : Number.NaN;
    process.stderr.write(`downloading ${model}  ${mb(last.downloadedSize)}${total}  ${mb(rate)} MB/s  ETA ${formatDuration(eta)}\n`);
  }, progressIntervalMs());
  timer.unref();
  return {
    update: (status) => {
      last = status;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * A GGUF model loaded by node-llama-cpp: resolved (downloaded for `hf:`), checked to be GGUF, on
 * the shared runtime for its thread count (default: cores - 1; node-llama-cpp's 4 crawls on small
 * machines). A file llama.cpp refuses is a ModelFileError, not a native stack trace.
 */
export async function loadGgufModel(settings: {
  model: string;
  modelsDir: string;
  threads?: number | undefined;
  gpu?: boolean | undefined;
}): Promise<{ path: string; llama: Llama; model: NativeModel; threads: number }> {
  const path = await resolveGgufPath(settings);
  await assertGguf(path);
  const threads = settings.threads ?? Math.max(1, cpus().length - 1);
  const llama = await sharedLlama(threads, settings.gpu ?? false);
  try {
    return { path, llama, model: await llama.loadModel({ modelPath: path }), threads };
  } catch (error) {
    throw new ModelFileError(`node-llama-cpp could not load ${path}: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'The file may be truncated or use an architecture this llama.cpp build does not support.',
      cause: error,
    });
  }
}
