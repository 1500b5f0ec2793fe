/**
 * Every command-line setting is also accepted in the config file, under `defaults.<command>`
 * with the option's name (issue 13): validated by the config schema (zod, strict), applied when
 * the command line did not give the option, and checked by the option's own parser.
 */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { checkConfigDefaults, commandPath, isDefaultable } from '../src/cli/config-defaults.js';
import { buildProgram } from '../src/cli/main.js';
import { EXIT_CODES } from '../src/errors.js';
import { startOpenAICompatibleServer } from './support/openai-compatible-server.js';
import { llmkb, type CliResult } from './support/run-cli.js';
import { tempDir } from './support/temp-dir.js';

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

function project(config: unknown): string {
  const dir = tempDir('llmkb-defaults-');
  writeFileSync(join(dir, 'llmkb.config.json'), JSON.stringify(config));
  return dir;
}

function assertConfigError(r: CliResult, pattern: RegExp): void {
  assert.equal(r.code, EXIT_CODES.usage, r.stderr);
  assert.match(r.stderr, /^llmkb: error: llmkb\.config\.json: field "defaults/m);
  assert.match(r.stderr, pattern);
  assert.match(r.stderr, /hint: /);
  assert.doesNotMatch(r.stderr, /internal error|^\s+at /m);
}

describe('config defaults: every command-line setting of every command', () => {
  it('each option of each command is accepted under its name (booleans as booleans), model specs and unknown names are refused', async () => {
    const program = await buildProgram();
    let settings = 0;
    for (const command of allCommands(program)) {
      const path = commandPath(command);
      for (const o of command.options) {
        const flag = !o.required && !o.optional;
        const value = flag ? true : 'x';
        const config = { defaults: { [path]: { [o.attributeName()]: value } } };
        // `--no-judge` beside `--judge <spec>`: one setting, a model spec (the role entry), so not in defaults.
        if (command.options.filter((x) => x.attributeName() === o.attributeName()).every(isDefaultable)) {
          assert.doesNotThrow(() => checkConfigDefaults(program, config, 'c.json'), `${path} ${o.flags}`);
          settings++;
          assert.throws(
            () => checkConfigDefaults(program, { defaults: { [path]: { [o.attributeName()]: flag ? 'x' : true } } }, 'c.json'),
            /must be/,
            `${path} ${o.flags}: the wrong kind of value`,
          );
        } else if (!['help', 'version'].includes(o.attributeName())) {
          assert.throws(() => checkConfigDefaults(program, config, 'c.json'), /has no setting/, `${path} ${o.flags} is not a setting`);
        }
      }
      assert.throws(() => checkConfigDefaults(program, { defaults: { [path]: { noSuchOption: 1 } } }, 'c.json'), /has no setting "noSuchOption"|no command/);
    }
    assert.ok(settings > 100, `${settings} settings`);
    assert.throws(() => checkConfigDefaults(program, { defaults: { evaluate: {} } }, 'c.json'), /no command "llmkb evaluate"/);
  });
});

describe('config defaults on the command line', () => {
  it('complete uses the configured model and settings; the command line wins; llmkb.cache=false bypasses the cache', async () => {
    const server = await startOpenAICompatibleServer({ complete: () => ' Paris' });
    try {
      const cwd = project({ model: `vllm:${server.baseURL}/m`, defaults: { complete: { maxTokens: 7, stop: ['\nQ:'] }, llmkb: { cache: false } } });
      const first = await llmkb(['complete', 'capital of France?'], { cwd });
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout, ' Paris\n');
      assert.equal(server.requests[0]!.body.max_tokens, 7, 'maxTokens from the config');
      assert.deepEqual(server.requests[0]!.body.stop, ['\nQ:'], 'stop from the config');
      const second = await llmkb(['complete', '--stop', 'END', '--max-tokens', '9', 'capital of France?'], { cwd });
      assert.equal(second.code, 0, second.stderr);
      assert.equal(server.requests[1]!.body.max_tokens, 9, 'the command line wins');
      assert.deepEqual(server.requests[1]!.body.stop, ['END']);
      assert.doesNotMatch(second.stderr, /cached/, 'cache: false in defaults.llmkb = --no-cache');
      const third = await llmkb(['complete', 'capital of France?'], { cwd });
      assert.equal(server.requests.length, 3, 'no cache: the same call is made again');
      assert.equal(third.code, 0, third.stderr);
    } finally {
      await server.close();
    }
  });

  it('complete without --model and without a configured model says how to name one', async () => {
    const r = await llmkb(['complete', 'hi']);
    assert.equal(r.code, EXIT_CODES.usage);
    assert.match(r.stderr, /no model to complete with\n {2}hint: Pass --model SPEC or set "model" in llmkb\.config\.json/);
  });

  it('eval: settings, mcqs, failUnder and cutoff from the config are checked like the command line, before any work', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ eval: { mcqs: 0 } }, /field "defaults\.eval\.mcqs": 0 is invalid: must be a whole number >= 1/],
      [{ eval: { failUnder: ['NCCR=0.1', 'NCCR=20'] } }, /field "defaults\.eval\.failUnder": "NCCR=20" is invalid: .*write NCCR=0\.2/],
      [{ eval: { cutoff: 'banana' } }, /field "defaults\.eval\.cutoff": "banana" is invalid: must be a date/],
      [{ eval: { mode: 'guess' } }, /field "defaults\.eval\.mode": "guess" is invalid: must be one of generate, logprobs/],
      [{ eval: { quick: 'yes' } }, /field "defaults\.eval\.quick": must be true or false/],
      [
        { eval: { 'max-tokens': 5 } },
        /field "defaults\.eval\.max-tokens": llmkb eval has no setting "max-tokens"[\s\S]*hint: Its settings: .*maxTokens.*camelCase/,
      ],
      [
        { evaluate: {} },
        /field "defaults\.evaluate": no command "llmkb evaluate" with settings[\s\S]*hint: "defaults" holds one section per command: "llmkb", "complete"/,
      ],
      [{ eval: { model: 'gguf:x.gguf' } }, /llmkb eval has no setting "model"[\s\S]*model specs go in the top-level role entries/],
    ];
    for (const [defaults, pattern] of cases) {
      const cwd = project({ defaults });
      const r = await llmkb(['eval', '--model', 'gguf:/nowhere/x.gguf', '--out', 'o', '--data', 'd'], { cwd });
      assertConfigError(r, pattern);
      assert.deepEqual(readdirSync(cwd), ['llmkb.config.json'], 'nothing written');
    }
  });

  it('a value the command line replaces is not parsed (the command line wins)', async () => {
    // The schema still checks the whole file (types and names); a value the command line
    // replaces is not run through the option's parser, as if it were not there.
    const cwd = project({ model: 'gguf:/nowhere/x.gguf', defaults: { eval: { maxTokens: 0 } } });
    const r = await llmkb(['eval', '--max-tokens', '8', '--out', 'o', '--data', 'd'], { cwd });
    assert.equal(r.code, EXIT_CODES.fileAccess, r.stderr);
    assert.match(r.stderr, /model file \/nowhere\/x\.gguf does not exist/, 'went on to load the model: --max-tokens 8 replaced the configured 0');
  });
});
