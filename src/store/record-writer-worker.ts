/**
 * Worker thread of `RecordWriter`: its own connection to the store, inserting the batches of run
 * records it is sent, each in one transaction, in the order they come, and answering each.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteDatabase } from './database.js';
import { SAVE_RECORD_SQL, type RecordBatch, type WriterReply } from './record-writer.js';

const port = parentPort!;
const db = new SqliteDatabase((workerData as { path: string }).path, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
// The main connection may hold the write lock for a while (the call journal moving into the
// store): this connection waits for it rather than failing the stage.
db.pragma('busy_timeout = 60000');
const save = db.prepare(SAVE_RECORD_SQL);
const insert = db.transaction((batch: RecordBatch) => {
  for (const [itemId, seq, record] of batch.rows) {
    // A deflated record arrives as a Uint8Array (structured clone), which better-sqlite3 binds only as a Buffer.
    save.run(batch.runId, batch.stage, itemId, seq, typeof record === 'string' ? record : Buffer.from(record.buffer, record.byteOffset, record.byteLength), batch.createdAt);
  }
});

port.on('message', (message: RecordBatch | 'close') => {
  if (message === 'close') {
    db.close();
    port.close();
    return;
  }
  let reply: WriterReply;
  try {
    insert(message);
    reply = { id: message.id };
  } catch (error) {
    const e = error as { message?: string; code?: unknown; name?: string };
    reply = { id: message.id, error: { message: e.message ?? String(error), name: e.name ?? 'Error', ...(typeof e.code === 'string' ? { code: e.code } : {}) } };
  }
  port.postMessage(reply);
});
