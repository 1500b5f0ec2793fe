/**
 * Runs side by side print their stages' progress into one terminal: each line is given the
 * run's name, and lines are printed whole (never redrawn in place, which would garble the lines
 * of the other runs), so the sweep's log reads as one view of the whole study.
 */
import { Writable } from 'node:stream';

export function prefixedStream(prefix: string, target: NodeJS.WritableStream = process.stderr): NodeJS.WritableStream & { isTTY: false } {
  let pending = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        // A redraw (`\r...`) keeps only what was drawn last.
        const text = line.slice(line.lastIndexOf('\r') + 1);
        if (text.trim()) target.write(`${prefix}${text}\n`);
      }
      callback();
    },
  });
  return Object.assign(stream, { isTTY: false as const });
}
