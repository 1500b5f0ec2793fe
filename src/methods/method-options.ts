/**
 * A method's options (`EvaluationMethod.options`), from the command line or a study file: each
 * known, of its type, one of its choices; relative paths resolved from where they were given.
 * Defaults are the method's to apply (they are documented on the option).
 */
import { isAbsolute, resolve } from 'node:path';
import { LlmkbError } from '../errors.js';
import type { EvaluationMethod, MethodOption } from './method.js';

function typeOk(option: MethodOption, value: unknown): boolean {
  switch (option.type) {
    case 'string':
      return typeof value === 'string' && value !== '';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string[]':
      return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v !== '');
  }
}

const TYPE_NAMES: Record<MethodOption['type'], string> = {
  string: 'a non-empty string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  'string[]': 'a list of strings',
};
function typeName(o: MethodOption): string {
  if (o.min !== undefined && o.max !== undefined) return `${TYPE_NAMES[o.type]} from ${o.min} to ${o.max}`;
  return `${TYPE_NAMES[o.type]}${o.min === undefined ? '' : ` >= ${o.min}`}${o.max === undefined ? '' : ` <= ${o.max}`}`;
}

/** The options checked, with `path` options made absolute; undefined values left out. */
export function checkMethodOptions(method: EvaluationMethod, raw: Readonly<Record<string, unknown>>, where: { baseDir: string }): Record<string, unknown> {
  const known = new Map((method.options ?? []).map((o) => [o.key, o]));
  const out: Record<string, unknown> = {};
  for (const [key, given] of Object.entries(raw)) {
    let value = given;
    if (value === undefined) continue;
    const option = known.get(key);
    if (!option) {
      throw new LlmkbError(`method "${method.id}" has no option "${key}"`, {
        hint: known.size ? `Its options: ${[...known.keys()].join(', ')} (llmkb methods lists them).` : `Method "${method.id}" takes no options.`,
      });
    }
    if (!typeOk(option, value) || (option.min !== undefined && (value as number) < option.min) || (option.max !== undefined && (value as number) > option.max))
      throw new LlmkbError(`method "${method.id}": option "${key}" must be ${typeName(option)} (got ${JSON.stringify(value)})`, { hint: option.description });
    if (option.choices && !(option.type === 'string[]' ? (value as string[]) : [value as string]).every((v) => option.choices!.includes(v))) {
      throw new LlmkbError(`method "${method.id}": option "${key}" must be one of ${option.choices.join(', ')} (got ${JSON.stringify(value)})`, {
        hint: option.description,
      });
    }
    if (option.parse && typeof value === 'string') {
      try {
        value = option.parse(value);
      } catch (error) {
        throw new LlmkbError(`method "${method.id}": option "${key}" ${JSON.stringify(raw[key])}: ${error instanceof Error ? error.message : String(error)}`, {
          hint: option.description,
        });
      }
    }
    const at = (p: string) => (isAbsolute(p) ? p : resolve(where.baseDir, p));
    out[key] = option.path ? (Array.isArray(value) ? value.map((v: string) => at(v)) : at(value as string)) : value;
  }
  for (const option of known.values()) {
    if (option.required && out[option.key] === undefined) {
      throw new LlmkbError(`method "${method.id}" needs option "${option.key}" (${option.flags.split(' ')[0]} on the command line)`, {
        hint: option.description,
      });
    }
  }
  return out;
}
