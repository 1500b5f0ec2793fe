/** Content hashes: file checksums and the checksum of a data set a run was made on. */
import { createHash } from 'node:crypto';

export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/** `sha256:<hex>` of one line per record: identifies the data a run was made on. */
export function checksumOfLines<T>(records: readonly T[], line: (record: T) => string): string {
  const hash = createHash('sha256');
  for (const r of records) hash.update(`${line(r)}\n`);
  return `sha256:${hash.digest('hex')}`;
}
