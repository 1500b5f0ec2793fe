/**
 * The config file's `defaults` (src/config/config.ts, COMMAND_OPTIONS): command-line settings
 * per command. Applied after the command line is parsed and before the command runs: an option
 * given on the command line keeps its value (the command line wins), any other takes the
 * config's value, checked by the option's own parser, so a bad value in the config fails like
 * the same value typed (exit 2), naming the config field.
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
      throw new ConfigError(`${field}: ${JSON.stringify(v)} is invalid: ${error.message}`, { hint: `The same values as ${option.flags} on the command line; the command line wins over the config.` });
    }
  }
  return result;
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
      // The schema and the commands disagree: a bug (test/config-defaults.test.ts guards it).
      if (option === undefined) throw new Error(`${field}: no option --${name} on llmkb ${key}`);
      if (command.getOptionValueSource(name) === 'cli') continue;
      command.setOptionValueWithSource(name, optionValue(option, value, field), 'config');
    }
  }
}
