/** The methods llmkb ships, in the order they are listed (the first is `llmkb eval`'s default). */
import { connerMethod } from './conner/conner-method.js';
import type { EvaluationMethod } from './method.js';
import { reliabilityMethod } from './reliability/reliability-method.js';

export const BUILTIN_METHODS: readonly EvaluationMethod[] = [reliabilityMethod, connerMethod];
