/**
 * A `node --test` reporter that writes one JSON object: each test file's time, the sum of its
 * top-level tests' durations in milliseconds. scripts/run-tests.mjs starts the longest files first
 * in the next run, so the run does not end waiting on one long file started last.
 */
export default async function* durations(source) {
  const byFile = {};
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      byFile[event.data.file] = (byFile[event.data.file] ?? 0) + (event.data.details?.duration_ms ?? 0);
    }
  }
  yield `${JSON.stringify(byFile)}\n`;
}
