/**
 * The registered evaluation methods: llmkb's own, then the user's, registered with
 * `registerMethod` in a program or named by module in the config's `methods` list
 * (`loadMethodModules`), and then listed by `llmkb methods`, run by `llmkb eval --method ID`
 * and `llmkb sweep`, and shown by `compare`, `report` and `view` like the built-in ones.
 */
import { LlmkbError } from '../errors.js';
import { importUserModule } from '../io/user-module.js';
import { BUILTIN_METHODS } from './builtin-methods.js';
import { METHOD_INTERFACE_VERSION, type EvaluationMethod } from './method.js';

const methods = new Map<string, EvaluationMethod>();

export function registerMethod(method: EvaluationMethod): void {
  if (method.interfaceVersion !== METHOD_INTERFACE_VERSION) {
    throw new LlmkbError(`method "${method.id}" implements ${String(method.interfaceVersion)}, not ${METHOD_INTERFACE_VERSION}`, {
      hint: 'Build the method against this version of llmkb (docs/method.md).',
    });
  }
  if (!/^[a-z][a-z0-9-]*$/.test(method.id)) throw new LlmkbError(`method id "${method.id}" must be lower-case letters, digits and dashes`);
  if (methods.has(method.id) && methods.get(method.id) !== method)
    throw new LlmkbError(`a method with id "${method.id}" is already registered`, { hint: 'Give the method another id.' });
  const ids = new Set<string>();
  for (const m of method.metricDefs) {
    if (ids.has(m.id)) throw new LlmkbError(`method "${method.id}" defines metric "${m.id}" twice`);
    ids.add(m.id);
  }
  if (method.stages.length === 0) throw new LlmkbError(`method "${method.id}" has no stages`);
  methods.set(method.id, method);
}

export function listMethods(): EvaluationMethod[] {
  return [...methods.values()];
}

/** The registered method with this id, if any (a summary of an unregistered method still shows, from its metricDefs). */
export function findMethod(id: string): EvaluationMethod | undefined {
  return methods.get(id);
}

export function getMethod(id: string): EvaluationMethod {
  const method = methods.get(id);
  if (!method)
    throw new LlmkbError(`unknown evaluation method "${id}"`, {
      hint: `Registered methods: ${[...methods.keys()].join(', ')}. List them with \`llmkb methods\`; add your own with the "methods" list of llmkb.config.json (docs/method.md).`,
    });
  return method;
}

/** The method `llmkb eval` runs when none is named: the first registered. */
export function defaultMethod(): EvaluationMethod {
  return listMethods()[0]!;
}

/**
 * Registers the methods of these modules (paths relative to `baseDir`): each module's default
 * export, or its named exports, that are methods (objects with this interface version).
 */
export async function loadMethodModules(paths: readonly string[], baseDir: string): Promise<EvaluationMethod[]> {
  const loaded: EvaluationMethod[] = [];
  for (const path of paths) {
    const { file, exports: mod } = await importUserModule(
      path,
      baseDir,
      'method',
      'The config\'s "methods" lists ES modules that export a method (docs/method.md); a .ts module needs node --import tsx.',
    );
    const found = Object.values(mod).filter(
      (v): v is EvaluationMethod =>
        typeof v === 'object' &&
        v !== null &&
        (v as { interfaceVersion?: unknown }).interfaceVersion !== undefined &&
        typeof (v as { id?: unknown }).id === 'string',
    );
    if (found.length === 0)
      throw new LlmkbError(`${file} exports no evaluation method`, {
        hint: `Export the method object (interfaceVersion "${METHOD_INTERFACE_VERSION}"), e.g. \`export default myMethod\` (docs/method.md).`,
      });
    for (const m of new Set(found)) {
      registerMethod(m);
      loaded.push(m);
    }
  }
  return loaded;
}

for (const method of BUILTIN_METHODS) registerMethod(method);
