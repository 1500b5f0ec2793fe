import { createHash } from 'node:crypto';

/**
 * The stem of a run's result files: the whole label made safe for a file name (never just its
 * last path segment, or `a/model.gguf` and `b/model.gguf` would overwrite each other). A label
 * that had to be changed or shortened gets a hash of the whole label, to stay unique.
 */
export function resultFileStem(label: string): string {
  const safe = label.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[_.]+|_+$/g, '') || 'model';
  if (safe === label && safe.length <= 100) return safe;
  // Made safe (or shortened): a hash of the whole label keeps "gguf:a/b" and "gguf_a_b" apart.
  const hash = createHash('sha256').update(label).digest('hex').slice(0, 8);
  return safe.length <= 90 ? `${safe}_${hash}` : `${hash}_${safe.slice(-90)}`;
}
