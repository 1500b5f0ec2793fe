/**
 * A study file: the models, methods, prompt settings, data sets and roles of a whole comparison
 * (the paper's 26 models x 3 settings), as YAML or JSON. `llmkb sweep STUDY` runs every
 * (model, method, setting) of it as a resumable run. Relative paths in the file are read from
 * the study file's folder, so a study can be moved together with its data.
 *
 * Errors name the file, the line (YAML and JSON alike: both go through the YAML parser, which
 * keeps positions) and the field.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isNode, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { modelEntrySchema, type ModelEntry, type ModelEntryOptions } from '../config/config.js';
import { fileAccessError, InputFileError, LlmkbError } from '../errors.js';
import { PAPER_CUTOFF, PROMPT_SETTINGS } from '../methods/reliability/defaults.js';
import { parseModelSpec } from '../providers/model-spec.js';
import { CREDENTIALS_HINT, credentialsProblem } from '../url-credentials.js';

/** The methods a sweep can run (the reliability method's pipeline, `evaluateModel`). */
export const SWEEP_METHODS = ['reliability'] as const;

/** Money per million tokens (any currency; the plan and summary print it as given). */
const priceSchema = z
  .object({
    input: z.number().min(0),
    output: z.number().min(0),
    /** Prices through a Batch API (`--batch`); default: half of the above, as OpenAI's. */
    batchInput: z.number().min(0).optional(),
    batchOutput: z.number().min(0).optional(),
  })
  .strict();
export type Price = z.infer<typeof priceSchema>;

const entryOptionsSchema = modelEntrySchema.options[1].shape;

/** A role's model: a spec string, or the config's model entry plus a price. */
const roleSchema = z.union([z.string().min(1), z.object({ ...entryOptionsSchema, price: priceSchema.optional() }).strict()]);
export type StudyRoleEntry = z.infer<typeof roleSchema>;

const dateSchema = z.string().regex(/^\d{4}(-\d{2}(-\d{2})?)?$/, 'must be a date written YYYY, YYYY-MM or YYYY-MM-DD');

const modelSchema = z
  .object({
    ...entryOptionsSchema,
    /** How the model is shown in tables and what its result folder is named by; unique in the study. */
    label: z.string().min(1),
    spec: z.string().min(1),
    /** Parameters in billions (null: unknown, as for hosted models). */
    params: z.number().positive().nullable().optional(),
    family: z.string().min(1).optional(),
    /** `base` or `fine-tuned` (instruction tuning and/or RLHF, paper Table 4). */
    tuning: z.enum(['base', 'fine-tuned']).optional(),
    knowledgeCutoff: dateSchema.optional(),
    /** Where it runs (vllm, openai, cpu, cuda...): metadata; the run records the backend it saw. */
    backend: z.string().min(1).optional(),
    /** Replicas serving this model (base URLs ending in /v1): requests are balanced across them. */
    endpoints: z.array(z.string().regex(/^https?:\/\/[^/\s]+(\/.*)?\/v1$/, 'must be a base URL ending in /v1')).min(1).optional(),
    price: priceSchema.optional(),
  })
  .strict();
export type StudyModel = z.infer<typeof modelSchema>;

export const studySchema = z
  .object({
    name: z.string().min(1).optional(),
    models: z.array(modelSchema).min(1),
    methods: z.array(z.enum(SWEEP_METHODS)).min(1).optional(),
    settings: z.array(z.enum(PROMPT_SETTINGS)).min(1).optional(),
    /** Local copies of the data sets' source files (as `eval --data-dir`). */
    dataDir: z.string().min(1).optional(),
    /** The built data sets, shared by every run (as `eval --data`); default `llmkb-data` beside the study. */
    data: z.string().min(1).optional(),
    /** Results folder (`--out` wins). */
    out: z.string().min(1).optional(),
    /** As `eval --quick`: 50 seen + 50 unseen questions, 5 MCQs. */
    quick: z.boolean().optional(),
    limit: z.number().int().min(1).optional(),
    seed: z.number().int().min(0).optional(),
    maxTokens: z.number().int().min(1).optional(),
    mcqs: z.number().int().min(1).optional(),
    mode: z.enum(['logprobs', 'generate']).optional(),
    /** The data sets' knowledge cutoff, for building UnseenQA (default: the paper's). */
    cutoff: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date written YYYY-MM-DD').optional(),
    /** Requests in flight to the models under test at once, over all models (default 256). */
    concurrency: z.number().int().min(1).max(65536).optional(),
    judge: roleSchema.optional(),
    distractor: roleSchema.optional(),
    embedder: roleSchema.optional(),
    /** The LLM that drops time-sensitive questions when SeenQA is built (paper Table 5). */
    timeFilter: roleSchema.optional(),
  })
  .strict();
export type StudyFile = z.infer<typeof studySchema>;

export const STUDY_ROLES = ['judge', 'distractor', 'embedder', 'timeFilter'] as const;
export type StudyRole = (typeof STUDY_ROLES)[number];

/** A study with its defaults filled in and its paths resolved. */
export interface Study {
  file: string;
  /** SHA-256 of the file's bytes. */
  checksum: string;
  name: string;
  models: Array<StudyModel & { entry: ModelEntryOptions }>;
  methods: Array<(typeof SWEEP_METHODS)[number]>;
  settings: Array<(typeof PROMPT_SETTINGS)[number]>;
  dataDir: string | undefined;
  data: string;
  out: string | undefined;
  quick: boolean;
  limit: number | undefined;
  seed: number;
  maxTokens: number | undefined;
  mcqs: number | undefined;
  mode: 'logprobs' | 'generate' | undefined;
  cutoff: string;
  concurrency: number;
  roles: Partial<Record<StudyRole, { entry: ModelEntry; price: Price | undefined }>>;
}

/** The model entry a study model stands for (its endpoints folded into the spec). */
function modelEntry(model: StudyModel): ModelEntryOptions {
  const { label: _l, params: _p, family: _f, tuning: _t, knowledgeCutoff: _k, backend: _b, endpoints, price: _price, ...entry } = model;
  if (!endpoints) return entry as ModelEntryOptions;
  const parsed = parseModelSpec(entry.spec as string);
  if (parsed.provider !== 'openai-compatible' || !['vllm', 'llamacpp', 'openai-compatible'].includes(parsed.flavor)) {
    throw new LlmkbError(`"endpoints" is for models behind servers (vllm:, llamacpp:, openai-compatible:), not ${entry.spec as string}`);
  }
  return { ...(entry as ModelEntryOptions), spec: `${parsed.flavor}:${endpoints.join(',')}/${parsed.model}` };
}

function roleEntry(role: StudyRoleEntry): { entry: ModelEntry; price: Price | undefined } {
  if (typeof role === 'string') return { entry: role, price: undefined };
  const { price, ...entry } = role;
  return { entry: entry as ModelEntryOptions, price };
}

/**
 * The bound on alias expansion (the yaml package's `maxAliasCount`: uses of an anchor times the
 * aliases inside it): a flat alias may be used this many times, while nested aliases, whose
 * expansion grows exponentially, are refused after a few levels.
 */
const MAX_ALIAS_COUNT = 1000;

const HINT = 'A study names "models" (each with "label" and "spec"), and optionally "name", "settings", "methods", "dataDir", "data", "out", "quick", "limit", "seed", "maxTokens", "mcqs", "mode", "cutoff", "concurrency", "judge", "distractor", "embedder", "timeFilter"; see examples/paper-study.yaml and README "Reproduce the paper".';

/** Reads, validates and resolves a study file (YAML or JSON). */
export function loadStudy(file: string): Study {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw fileAccessError(file, error, 'read', 'study file');
  }
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const line = lineCounter.linePos(e.pos[0]).line;
    throw new InputFileError(file, line, undefined, `not valid YAML or JSON: ${e.message.split('\n')[0]}`, HINT);
  }
  let json: unknown;
  try {
    json = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // The yaml package's alias checks: an alias expanded too often (a "billion laughs" file), or one without its anchor.
    const message = error instanceof Error ? error.message : String(error);
    if (!/excessive alias count/i.test(message)) throw new InputFileError(file, undefined, undefined, `not valid YAML: ${message}`, HINT);
    throw new InputFileError(file, undefined, undefined, `its aliases (*name) expand to more than ${MAX_ALIAS_COUNT} copies of what they name; refused, since a few such lines can expand to gigabytes`, 'Write the repeated parts out, or alias (*name) each anchor (&name) fewer times.');
  }
  const lineOf = (path: ReadonlyArray<PropertyKey>): number | undefined => {
    // The deepest node that exists along the path: a missing field points at its parent.
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n) as unknown[], true);
      if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
    }
    return undefined;
  };
  const parsed = studySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // An unknown key: point at the key itself.
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
    throw new InputFileError(file, lineOf(path), path.join('.') || undefined, issue.message, HINT);
  }
  const s = parsed.data;
  const base = dirname(resolve(file));
  const at = (p: string | undefined) => (p === undefined ? undefined : resolve(base, p));
  const labels = new Map<string, number>();
  const models = s.models.map((m, i) => {
    if (labels.has(m.label)) throw new InputFileError(file, lineOf(['models', i, 'label']), `models.${i}.label`, `label "${m.label}" is used twice (models ${labels.get(m.label)} and ${i})`, 'Each model needs its own label: it names its rows and its result folder.');
    labels.set(m.label, i);
    for (const [j, url] of (m.endpoints ?? []).entries()) {
      const problem = credentialsProblem(url, 'the endpoint');
      if (problem !== undefined) throw new InputFileError(file, lineOf(['models', i, 'endpoints', j]), `models.${i}.endpoints.${j}`, problem, CREDENTIALS_HINT);
    }
    try {
      parseModelSpec(m.spec);
      return { ...m, entry: modelEntry(m) };
    } catch (error) {
      if (error instanceof LlmkbError) throw new InputFileError(file, lineOf(['models', i, 'spec']), `models.${i}.spec`, error.message, error.hint);
      throw error;
    }
  });
  const roles: Study['roles'] = {};
  for (const role of STUDY_ROLES) {
    const r = s[role];
    if (r === undefined) continue;
    try {
      parseModelSpec(typeof r === 'string' ? r : r.spec);
    } catch (error) {
      if (error instanceof LlmkbError) throw new InputFileError(file, lineOf([role]), role, error.message, error.hint);
      throw error;
    }
    roles[role] = roleEntry(r);
  }
  return {
    file: resolve(file),
    checksum: createHash('sha256').update(bytes).digest('hex'),
    name: s.name ?? resolve(file).replace(/^.*[\\/]/, '').replace(/\.(ya?ml|json)$/i, ''),
    models,
    methods: s.methods ?? ['reliability'],
    settings: s.settings ?? [...PROMPT_SETTINGS],
    dataDir: at(s.dataDir),
    data: at(s.data ?? 'llmkb-data')!,
    out: at(s.out),
    quick: s.quick ?? false,
    limit: s.limit,
    seed: s.seed ?? 42,
    maxTokens: s.maxTokens,
    mcqs: s.mcqs,
    mode: s.mode,
    cutoff: s.cutoff ?? PAPER_CUTOFF,
    concurrency: s.concurrency ?? 256,
    roles,
  };
}
