/**
 * The config file's `defaults`: command-line settings per command, checked against the commands
 * themselves (every section a command, every key one of its options, of the right kind). Applied
 * after the command line is parsed and before the command runs: an option given on the command
 * line keeps its value (the command line wins), any other takes the config's value, checked by
 * the option's own parser, so a bad value in the config fails like the same value typed (exit 2),
 * naming the config field. Not settings: `--config`, `--store` (the top-level `store`), model
 * specs (`<spec>` options: the top-level role entries) and required options.
 */
import { type Command, InvalidArgumentError, type Option } from 'commander';
import type { LlmkbConfig } from '../config/config.js';
import { ConfigError } from '../errors.js';

/** The name of a command's section in `defaults`: `llmkb` for the program, else its path (`data seenqa`). */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.length === 0 ? 'llmkb' : names.join(' ');
}

function optionValue(option: Option, value: unknown, field: string): unknown {
  if (typeof value === 'boolean') return value;
  const values: unknown[] = Array.isArray(value) ? value : [value];
  // A repeatable option without a parser of its own (--settings takes a comma-separated list).
  if (!option.parseArg && !option.variadic) return values.join(',');
  let result: unknown;
  for (const v of values) {
    try {
      result = option.parseArg ? option.parseArg(String(v), result) : [...((result as string[] | undefined) ?? []), String(v)];
    } catch (error) {
      if (!(error instanceof InvalidArgumentError)) throw error;
      throw new ConfigError(`${field}: ${JSON.stringify(v)} is invalid: ${error.message}`, {
        hint: `The same values as ${option.flags} on the command line; the command line wins over the config.`,
      });
    }
  }
  return result;
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

/** Whether an option can be a setting of `defaults` (see the module comment). */
export function isDefaultable(option: Option): boolean {
  return !['help', 'version', 'config', 'store'].includes(option.attributeName()) && !option.mandatory && !/<spec>/.test(option.flags);
}

/** Checks every section of `defaults` against the program's commands before any command runs. */
export function checkConfigDefaults(program: Command, config: Pick<LlmkbConfig, 'defaults'>, file: string | undefined): void {
  const defaults = config.defaults;
  if (defaults === undefined) return;
  const commands = new Map(allCommands(program).map((c) => [commandPath(c), c]));
  for (const [key, section] of Object.entries(defaults)) {
    const command = commands.get(key);
    const where = `${file ?? 'the config'}: field "defaults.${key}"`;
    const settable = command ? command.options.filter(isDefaultable) : [];
    if (!command || settable.length === 0)
      throw new ConfigError(`${where}: no command "llmkb ${key}" with settings`, {
        hint: `"defaults" holds one section per command: ${[...commands.entries()]
          .filter(([, c]) => c.options.some(isDefaultable))
          .map(([k]) => `"${k}"`)
          .join(', ')}.`,
      });
    for (const [name, value] of Object.entries(section)) {
      const options = command.options.filter((o) => o.attributeName() === name);
      const option = options[0];
      const field = `${where.slice(0, -1)}.${name}"`;
      if (!option || !options.every(isDefaultable)) {
        throw new ConfigError(`${field}: llmkb ${key} has no setting "${name}"`, {
          hint: `Its settings: ${settable.map((o) => o.attributeName()).join(', ')} (options by their long name in camelCase; model specs go in the top-level role entries, the store in "store").`,
        });
      }
      const flag = options.every((o) => !o.required && !o.optional);
      if (flag !== (typeof value === 'boolean'))
        throw new ConfigError(`${field}: must be ${flag ? 'true or false' : `a value as ${option.flags} takes`}`, {
          hint: `The same values as ${option.flags} on the command line; the command line wins over the config.`,
        });
    }
  }
}

/** Sets, on `actionCommand` and the commands above it, every configured option the command line did not give. */
export function applyConfigDefaults(actionCommand: Command, config: LlmkbConfig, file: string | undefined): void {
  const defaults = config.defaults as Record<string, Record<string, unknown> | undefined> | undefined;
  if (defaults === undefined) return;
  for (let command: Command | null = actionCommand; command; command = command.parent) {
    const key = commandPath(command);
    const section = defaults[key];
    if (section === undefined) continue;
    for (const [name, value] of Object.entries(section)) {
      if (value === undefined) continue;
      const field = `${file ?? 'the config'}: field "defaults.${key}.${name}"`;
      const option = command.options.find((o) => o.attributeName() === name);
      // checkConfigDefaults refused any other before the command ran.
      if (option === undefined) continue;
      if (command.getOptionValueSource(name) === 'cli') continue;
      command.setOptionValueWithSource(name, optionValue(option, value, field), 'config');
    }
  }
}
