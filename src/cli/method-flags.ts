/**
 * The command-line flags of the registered methods, for `llmkb eval`: one `--<role>` per model
 * role (`--judge`, `--time-filter`, `--nli`, ...) and each method's options (`--mcqs`, ...). A flag
 * two methods share is declared once, its help naming each method's meaning.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { EvaluationMethod, MethodOption, RoleDef } from '../methods/method.js';
import { finiteNumber, positiveInteger, positiveNumber, wholeNumber } from '../methods/cli-options.js';

/** `timeFilter` -> `time-filter`. */
export function roleFlag(role: string): string {
  return role.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).replace(/_/g, '-');
}

/** Commander's attribute for a long flag (`--time-filter` -> `timeFilter`). */
function attributeOf(flags: string): string {
  return new Option(flags).attributeName();
}

/** The value of an option as typed, by its type (a method's own parser wins). */
function parserOf(option: MethodOption): ((value: string, previous?: unknown) => unknown) | undefined {
  const own = option.parse;
  if (own) {
    return (value) => {
      try {
        return own(value);
      } catch (error) {
        throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
      }
    };
  }
  switch (option.type) {
    case 'integer':
      return option.min !== undefined && option.min >= 1 ? positiveInteger : wholeNumber;
    case 'number':
      return option.min !== undefined && option.min > 0 ? positiveNumber : finiteNumber;
    case 'string[]':
      return (value, previous) => [...((previous as string[] | undefined) ?? []), value];
    case 'string':
      return option.choices
        ? (value) => {
            if (!option.choices!.includes(value)) throw new InvalidArgumentError(`must be one of ${option.choices!.join(', ')}`);
            return value;
          }
        : undefined;
    case 'boolean':
      return undefined;
  }
}

/** Adds every registered method's role flags (but the model under test's, `--model`) and options to `command`. */
export function addMethodFlags(command: Command, methods: readonly EvaluationMethod[], subject = 'model'): void {
  const roles = new Map<string, Array<{ method: string; role: RoleDef }>>();
  for (const m of methods) for (const role of m.roles) if (role.id !== subject) roles.set(role.id, [...(roles.get(role.id) ?? []), { method: m.id, role }]);
  for (const [id, uses] of roles) {
    const fallback = uses[0]!.role.fallback;
    command.option(
      `--${roleFlag(id)} <spec>`,
      `${uses.map((u) => `${methods.length > 1 ? `(${u.method}) ` : ''}${u.role.description}`).join('; ')}. Default: "${id}" in the config${fallback ? `; none: ${fallback}` : ''}; "none" forces none`,
    );
  }
  const options = new Map<string, Array<{ method: string; option: MethodOption }>>();
  for (const m of methods) for (const o of m.options ?? []) options.set(o.flags, [...(options.get(o.flags) ?? []), { method: m.id, option: o }]);
  for (const [flags, uses] of options) {
    const parser = parserOf(uses[0]!.option);
    const help = uses.map((u) => `${methods.length > 1 ? `(${u.method}) ` : ''}${u.option.description}`).join('; ');
    if (parser) command.option(flags, help, parser);
    else command.option(flags, help);
  }
}

/** The given values of a method's options, by option key, from the parsed command line. */
export function methodOptionValues(method: EvaluationMethod, opts: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const o of method.options ?? []) {
    const value = opts[attributeOf(o.flags)];
    if (value !== undefined) out[o.key] = value;
  }
  return out;
}

/** The method options given on the command line that this method does not have (refused, so a typo is not ignored). */
export function foreignOptions(
  method: EvaluationMethod,
  methods: readonly EvaluationMethod[],
  opts: Readonly<Record<string, unknown>>,
  command: Command,
): string[] {
  const own = new Set((method.options ?? []).map((o) => o.flags));
  const ownRoles = new Set(method.roles.map((r) => r.id));
  const out: string[] = [];
  for (const m of methods) {
    for (const o of m.options ?? []) {
      const name = attributeOf(o.flags);
      if (!own.has(o.flags) && opts[name] !== undefined && command.getOptionValueSource(name) === 'cli' && !out.includes(o.flags.split(' ')[0]!))
        out.push(o.flags.split(' ')[0]!);
    }
    for (const r of m.roles) {
      const name = attributeOf(`--${roleFlag(r.id)} <spec>`);
      if (!ownRoles.has(r.id) && opts[name] !== undefined && command.getOptionValueSource(name) === 'cli' && !out.includes(`--${roleFlag(r.id)}`))
        out.push(`--${roleFlag(r.id)}`);
    }
  }
  return out;
}

/** The spec given for a role on the command line (`--judge X`), if any. */
export function roleSpecOf(role: string, opts: Readonly<Record<string, unknown>>): string | undefined {
  const value = opts[attributeOf(`--${roleFlag(role)} <spec>`)];
  return typeof value === 'string' ? value : undefined;
}
