import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../../test/support/temp-dir.js';
import { writeFileAtomic } from './files.js';
import { hostLabel } from './process-alive.js';
import { temporaryFileFor } from './temporary-file.js';

/** The id of a process that has ended. */
const endedPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

describe('temporaryFileFor: the temporary file of an all-or-nothing write', () => {
  it("is beside the file, named by this machine and process; removes what this machine's ended processes left of the same file", () => {
    const dir = tempDir('llmkb-tmpfile-');
    const file = join(dir, 'out.jsonl');
    const host = hostLabel();
    const dead = `out.jsonl.tmp-${host}-${endedPid()}`;
    const live = `out.jsonl.tmp-${host}-${process.ppid}`;
    const elsewhere = `out.jsonl.tmp-another-node-${endedPid()}`;
    const otherFile = `other.jsonl.tmp-${host}-${endedPid()}`;
    for (const name of [dead, live, elsewhere, otherFile]) writeFileSync(join(dir, name), 'partial');
    assert.equal(temporaryFileFor(file), join(dir, `out.jsonl.tmp-${host}-${process.pid}`));
    assert.deepEqual(readdirSync(dir).sort(), [elsewhere, live, otherFile].sort(), 'only the ended process of this machine lost its file');
  });

  it('a write after a kill -9 mid-write leaves the output and nothing else', async () => {
    const dir = tempDir('llmkb-tmpfile-');
    const file = join(dir, 'records.jsonl');
    const writer = pathToFileURL(join(import.meta.dirname, 'result-files.ts')).href;
    // A process that has written part of the file and is still writing: killed without a chance to clean up.
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { JsonlWriter } = await import(${JSON.stringify(writer)}); const w = new JsonlWriter(${JSON.stringify(file)}); for (let i = 0; i < 20000; i++) w.write({ i }); console.log('writing'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
    const ended = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await ended;
    assert.deepEqual(readdirSync(dir), [`records.jsonl.tmp-${hostLabel()}-${child.pid}`], 'the killed process left its temporary file');
    writeFileAtomic(file, '{"i":0}\n');
    assert.deepEqual(readdirSync(dir), ['records.jsonl']);
    assert.equal(readFileSync(file, 'utf8'), '{"i":0}\n');
    assert.ok(!existsSync(`${file}.tmp-${hostLabel()}-${process.pid}`));
  });
});
