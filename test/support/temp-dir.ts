/**
 * Temporary folders for tests, removed when the test process exits (each test file runs in a
 * process of its own under `node --test`), so a test run leaves nothing in the temp directory
 * whether its tests pass, fail or are skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
let hooked = false;

/**
 * tsx's compile cache (`tsx-<uid>` in the temp directory), when the temp directory is not the
 * system's shared /tmp: a run given a TMPDIR of its own (a CI job, the acceptance check) is left
 * as it was found. tsx writes its cache entries best-effort and re-creates the folder as needed,
 * so a test file still running beside this one loses only cache entries.
 */
function tsxCache(): string[] {
  const uid = process.getuid?.();
  return uid === undefined || tmpdir() === '/tmp' ? [] : [join(tmpdir(), `tsx-${uid}`)];
}

function removeAll(): void {
  for (const dir of [...made.splice(0), ...tsxCache()]) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // A folder a child process still holds open: nothing more a test can do at exit.
    }
  }
}

/** A new empty folder under the temp directory (`prefix` starts its name), removed at exit. */
export function tempDir(prefix = 'llmkb-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  hook();
  return dir;
}

/** Removes the temp folders at exit; a test file that makes none through `tempDir` calls this to leave tsx's cache out too. */
export function hook(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', removeAll);
}

/** Removes the folders made so far (for a test that checks the temp directory itself). */
export function removeTempDirs(): void {
  removeAll();
}
