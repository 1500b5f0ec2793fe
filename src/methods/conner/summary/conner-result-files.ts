/**
 * Where `llmkb conner score --out DIR` puts a run (one generator x setting): the same layout as
 * the reliability method's results (`<stem>.summary.json` beside `<stem>.records.jsonl`), so that
 * `compare`, `report` and `view` find CONNER runs the way they find reliability runs.
 */
import { resultFileStem } from '../../../runs/result-file-stem.js';

/** `<generator>.<setting>`, each made safe for a file name (a changed name gets a hash, so two never collide). */
export function connerResultStem(generator: string, setting: string): string {
  return `${resultFileStem(generator)}.${resultFileStem(setting)}`;
}
