/**
 * The documentation's code blocks against the built package, so that the docs cannot drift from it:
 *
 * - every `npx llmkb ...` line of every shell block names a command that exists, with options that
 *   command has (read from its `--help`), and no block runs `llmkb` bare (not on PATH in a clone);
 * - every shell block that runs offline, and every TypeScript block that is a whole program (it
 *   starts with `import`), is run: page by page, in order, in one scratch folder per page (a block
 *   may use what an earlier block of its page made), with the network cut off; each must exit 0.
 *   A block that needs what a machine without network lacks says so on its first line
 *   (`# needs: a vLLM server on localhost:8000`, `// needs: ...`) and is only checked, not run.
 *
 * What a runnable block may use, as a reader would have it (docs/testing.md, "The docs tests"):
 * `model.gguf` (the test model, $LLMKB_TEST_GGUF), `llmkb-sources/` (local copies of the data sets'
 * source files, $LLMKB_DATA_DIR), `examples/` (the repository's), both variables, and for programs
 * the package as `llmkb`. Needs `npm run build` first.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { blockNeeds, docPages, fencedBlocks, isProgramBlock, isShellBlock, llmkbCommandLines, type FencedBlock } from './support/markdown-docs.js';
import { tempDir } from './support/temp-dir.js';

const root = join(import.meta.dirname, '..');
const BIN = join(root, 'bin', 'llmkb.js');
const GGUF = process.env.LLMKB_TEST_GGUF;
const DATA = process.env.LLMKB_DATA_DIR;

/** The longest a block may run. */
const BLOCK_TIMEOUT_MS = 240_000;

interface CommandHelp {
  /** Option flags (`--model`, `-m`) and whether each takes a value. */
  options: Map<string, boolean>;
  subcommands: Set<string>;
}

const helpCache = new Map<string, CommandHelp>();

/** A command's options and subcommands, from its `--help`. */
function helpOf(path: string[]): CommandHelp {
  const key = path.join(' ');
  const cached = helpCache.get(key);
  if (cached) return cached;
  const r = spawnSync(process.execPath, [BIN, ...path, '--help'], { encoding: 'utf8' });
  assert.equal(r.status, 0, `llmkb ${key} --help exits 0 (stderr: ${r.stderr})`);
  const help: CommandHelp = { options: new Map(), subcommands: new Set() };
  let section = '';
  for (const line of r.stdout.split('\n')) {
    if (/^\S.*:$/.test(line)) section = line;
    const flags = /^ {2}(-\w)?(?:, )?(--[\w-]+)?( [<[])?/.exec(line);
    if (section === 'Options:' && flags && (flags[1] || flags[2])) {
      for (const f of [flags[1], flags[2]]) if (f) help.options.set(f, flags[3] !== undefined);
    }
    const sub = /^ {2}([a-z][\w-]*)/.exec(line);
    if (section === 'Commands:' && sub && sub[1] !== 'help') help.subcommands.add(sub[1]!);
  }
  helpCache.set(key, help);
  return help;
}

let builtInMethods: Set<string> | undefined;

/** The methods llmkb ships (a method of the user's, registered by a config, adds options this checker cannot see). */
function isBuiltInMethod(id: string): boolean {
  if (!builtInMethods) {
    const r = spawnSync(process.execPath, [BIN, 'methods', '--json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, `llmkb methods --json exits 0 (stderr: ${r.stderr})`);
    builtInMethods = new Set((JSON.parse(r.stdout) as { methods: Array<{ id: string }> }).methods.map((m) => m.id));
  }
  return builtInMethods.has(id);
}

/**
 * What is wrong with one `npx llmkb ...` command line: unknown commands and options. The options
 * of `eval --method ID` for a method that is not built in are not checked.
 */
function commandProblems(args: string[]): string[] {
  const problems: string[] = [];
  const global = helpOf([]);
  let i = 0;
  const takeOption = (help: CommandHelp): void => {
    const arg = args[i]!;
    const name = arg.startsWith('--') ? arg.split('=')[0]! : arg;
    const takesValue = help.options.get(name) ?? global.options.get(name);
    if (takesValue === undefined) problems.push(`unknown option ${name}`);
    if (takesValue && !arg.includes('=')) i++;
    i++;
  };
  while (i < args.length && args[i]!.startsWith('-')) takeOption(global);
  const path: string[] = [];
  let help = global;
  while (i < args.length && help.subcommands.has(args[i]!)) {
    path.push(args[i]!);
    help = helpOf(path);
    i++;
  }
  if (path.length === 0 && i < args.length && args[i] !== 'help') problems.push(`unknown command "${args[i]}"`);
  const method = args.findIndex((a) => a === '--method' || a.startsWith('--method='));
  const methodId = method < 0 ? undefined : args[method]!.includes('=') ? args[method]!.split('=')[1] : args[method + 1];
  if (methodId !== undefined && !isBuiltInMethod(methodId)) i = args.length;
  while (i < args.length) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (/^-[A-Za-z-]/.test(arg)) takeOption(help);
    else i++;
  }
  return problems.map((p) => `${['llmkb', ...path].join(' ')}: ${p}`);
}

/** The shell blocks and programs of a page: what each needs (run only without needs) and whether it is a program. */
function codeBlocksOf(page: string): Array<FencedBlock & { needs: string | undefined; program: boolean }> {
  return fencedBlocks(readFileSync(join(root, page), 'utf8'))
    .filter((b) => isShellBlock(b) || isProgramBlock(b))
    .map((b) => ({ ...b, needs: blockNeeds(b), program: isProgramBlock(b) }));
}

const pages = docPages(root);

describe('documentation shell blocks: commands and options exist', () => {
  for (const page of pages) {
    const blocks = codeBlocksOf(page).filter((b) => !b.program);
    if (blocks.length === 0) continue;
    it(page, () => {
      const problems: string[] = [];
      for (const block of blocks) {
        const { commands, bare } = llmkbCommandLines(block.text);
        for (const line of bare) problems.push(`${page}:${block.line + line}: runs llmkb bare; write npx llmkb (it works from a clone and from an install)`);
        for (const c of commands) for (const p of commandProblems(c.args)) problems.push(`${page}:${block.line + c.line}: ${p}`);
      }
      assert.deepEqual(problems, [], problems.join('\n'));
    });
  }
});

describe('the command-line checker', () => {
  it('finds unknown commands and options and bare llmkb, and reads quotes, continuations and here-documents', () => {
    const script = [
      'npx llmkb eval --model gguf:./m.gguf --limit 6 \\',
      '  --no-such-flag x > out.txt',
      'npx llmkb --store s.sqlite evaluate',
      'npx llmkb corpus search notes "a query with --fake inside" -k 2 --mode bm25',
      "cat > f.jsonl <<'EOF'",
      'npx llmkb not-run --at-all',
      'EOF',
      "llmkb runs && npx llmkb judge check --no-judge --evouna 'dir with spaces' | head",
      "FOO=1 npx llmkb complete $'a\\nb' --stop $'\\nQ:' -m mock:x.jsonl",
      'npx llmkb eval --method my-method --my-option 3',
    ].join('\n');
    const { commands, bare } = llmkbCommandLines(script);
    assert.deepEqual(bare, [8], 'the bare llmkb on line 8');
    assert.deepEqual(
      commands.map((c) => c.line),
      [1, 3, 4, 8, 8, 9, 10],
    );
    assert.deepEqual(
      commands[0]!.args,
      ['eval', '--model', 'gguf:./m.gguf', '--limit', '6', '--no-such-flag', 'x'],
      'continued line joined, redirection left out',
    );
    assert.deepEqual(commands[5]!.args, ['complete', 'a\nb', '--stop', '\nQ:', '-m', 'mock:x.jsonl']);
    assert.deepEqual(
      commands.map((c) => commandProblems(c.args)),
      [['llmkb eval: unknown option --no-such-flag'], ['llmkb: unknown command "evaluate"'], [], [], [], [], []],
    );
    assert.deepEqual(
      commandProblems(['eval', '--method', 'reliability', '--my-option', '3']),
      ['llmkb eval: unknown option --my-option'],
      "a built-in method's options are checked",
    );
  });
});

/** Runs a command in `cwd`; resolves with its exit code and output (killed with its children after the time-out). */
function runBlock(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n(killed after ${BLOCK_TIMEOUT_MS / 1000} s)`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, BLOCK_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** `npx llmkb` runs this checkout's built CLI; nothing else goes through npx here. */
const PRELUDE = `set -eo pipefail
npx() {
  if [ "$1" = llmkb ]; then shift; node "$LLMKB_DOCS_BIN" "$@"
  else echo "docs test: only npx llmkb runs here, not npx $*" >&2; return 127; fi
}
`;

describe('documentation code blocks: the offline ones run', () => {
  const scratch: string[] = [];
  after(() => {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });
  const missing = [GGUF ? undefined : 'LLMKB_TEST_GGUF', DATA ? undefined : 'LLMKB_DATA_DIR'].filter(Boolean);
  for (const page of pages) {
    const blocks = codeBlocksOf(page).filter((b) => b.needs === undefined);
    if (blocks.length === 0) continue;
    describe(page, () => {
      let cwd: string | undefined;
      const env = (): NodeJS.ProcessEnv => ({
        PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
        HOME: process.env.HOME,
        LANG: process.env.LANG,
        TMPDIR: process.env.TMPDIR,
        CI: '1',
        LLMKB_DOCS_BIN: BIN,
        LLMKB_CACHE_DIR: join(cwd!, '.cache'),
        LLMKB_TEST_GGUF: GGUF,
        LLMKB_DATA_DIR: DATA,
        NODE_OPTIONS: `--import=${pathToFileURL(join(import.meta.dirname, 'support', 'offline-fetch.mjs')).href}`,
      });
      for (const block of blocks) {
        it(`${page}:${block.line}`, { skip: missing.length ? `set ${missing.join(' and ')} to run the documentation's offline blocks` : false }, async () => {
          if (cwd === undefined) {
            cwd = tempDir('llmkb-docs-');
            scratch.push(cwd);
            symlinkSync(GGUF!, join(cwd, 'model.gguf'));
            symlinkSync(DATA!, join(cwd, 'llmkb-sources'));
            symlinkSync(join(root, 'examples'), join(cwd, 'examples'));
            mkdirSync(join(cwd, 'node_modules'));
            symlinkSync(root, join(cwd, 'node_modules', 'llmkb'));
          }
          let r: { code: number | null; output: string };
          if (block.program) {
            const file = join(cwd, `.block-${block.line}.mts`);
            writeFileSync(file, `${block.text}\n`);
            r = await runBlock(process.execPath, [`--import=${import.meta.resolve('tsx')}`, file], cwd, env());
          } else {
            const file = join(cwd, `.block-${block.line}.sh`);
            writeFileSync(file, `${PRELUDE}${block.text}\n`);
            r = await runBlock('bash', ['-c', `. ${JSON.stringify(file)}`], cwd, env());
          }
          assert.equal(r.code, 0, `${page}:${block.line}: the block exits ${r.code}; its output ends:\n${r.output.split('\n').slice(-40).join('\n')}`);
        });
      }
    });
  }
});
