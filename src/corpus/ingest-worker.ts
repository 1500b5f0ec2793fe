/**
 * Worker thread of `prepareInWorker`: reads one corpus file, splits its documents into passages
 * and posts them in batches, never more than MAX_IN_FLIGHT batches ahead of the writer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PassageOptions } from './passages.js';
import { BATCH_CHARS, MAX_IN_FLIGHT, prepareInProcess, serializeError, type PreparedDocument, type WorkerMessage } from './prepared-documents.js';
import type { CorpusFile } from './corpus-files.js';
import type { ReadOptions } from './readers.js';

const port = parentPort!;
const { file, read, settings } = workerData as { file: CorpusFile; read: ReadOptions; settings: PassageOptions };
let credits = MAX_IN_FLIGHT;
let wake: (() => void) | undefined;
port.on('message', () => {
  credits += 1;
  wake?.();
});

async function send(message: WorkerMessage): Promise<void> {
  while (credits === 0) {
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
  credits -= 1;
  port.postMessage(message, message.type === 'batch' ? message.docs.map((d) => d.passages.buffer as ArrayBuffer) : []);
}

try {
  let docs: PreparedDocument[] = [];
  let chars = 0;
  let bytes = 0;
  for await (const doc of prepareInProcess(file, read, settings, (n) => (bytes += n))) {
    docs.push(doc);
    chars += doc.text.length;
    if (chars >= BATCH_CHARS) {
      await send({ type: 'batch', docs, bytes });
      docs = [];
      chars = 0;
      bytes = 0;
    }
  }
  if (docs.length > 0 || bytes > 0) await send({ type: 'batch', docs, bytes });
  port.postMessage({ type: 'done' } satisfies WorkerMessage);
} catch (error) {
  port.postMessage({ type: 'error', error: serializeError(error) } satisfies WorkerMessage);
}
port.unref();
