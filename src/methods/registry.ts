/**
 * The registered evaluation methods. llmkb registers its own; a user's method registers itself
 * with `registerMethod` and is then listed by `llmkb methods` like the built-in ones.
 */
import { LlmkbError } from '../errors.js';
import { METHOD_INTERFACE_VERSION, type EvaluationMethod } from './method.js';
import { connerMethod } from './conner/conner-method.js';
import { reliabilityMethod } from './reliability/reliability-method.js';

const methods = new Map<string, EvaluationMethod>();

export function registerMethod(method: EvaluationMethod): void {
  if (method.interfaceVersion !== METHOD_INTERFACE_VERSION) {
    throw new LlmkbError(`method "${method.id}" implements ${String(method.interfaceVersion)}, not ${METHOD_INTERFACE_VERSION}`, { hint: 'Build the method against this version of llmkb.' });
  }
  if (methods.has(method.id) && methods.get(method.id) !== method) throw new LlmkbError(`a method with id "${method.id}" is already registered`, { hint: 'Give the method another id.' });
  const ids = new Set<string>();
  for (const m of method.metricDefs) {
    if (ids.has(m.id)) throw new LlmkbError(`method "${method.id}" defines metric "${m.id}" twice`);
    ids.add(m.id);
  }
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
  if (!method) throw new LlmkbError(`unknown evaluation method "${id}"`, { hint: `Registered methods: ${[...methods.keys()].join(', ')}. List them with \`llmkb methods\`.` });
  return method;
}

registerMethod(reliabilityMethod);
registerMethod(connerMethod);
