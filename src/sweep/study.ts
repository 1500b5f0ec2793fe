/**
 * A study file: the models, methods (with their settings and options), roles and shared choices
 * of a whole comparison (the reliability paper's 26 models x 3 settings; CONNER's generators x NQ
 * and WoW), as YAML or JSON. `llmkb sweep STUDY` runs every (model, method, setting) of it as a
 * resumable run. Relative paths in the file are read from the study file's folder, so a study can
 * be moved together with its data and models.
 *
 * Besides its own fields, a study's top level may name a model role of any method it runs
 * (`judge: ...`, `nli: ...`) and any option of those methods (`maxTokens: 50` applies to every
 * listed method that has a `maxTokens` option); a `methods:` entry's own `options` win.
 *
 * Errors name the file, the line (YAML and JSON alike: both go through the YAML parser, which
 * keeps positions) and the field.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { NO_MODEL, type ModelEntry, type ModelEntryOptions } from '../config/config.js';
import { modelEntryShape } from '../providers/model-entry-schema.js';
import { fileAccessError, InputFileError, LlmkbError } from '../errors.js';
import type { EvaluationMethod } from '../methods/method.js';
import { checkMethodOptions } from '../methods/method-options.js';
import { defaultMethod, findMethod, listMethods } from '../methods/registry.js';
import { resolveModelSpec } from '../providers/provider-registry.js';
import { specRelativeTo, specWithEndpoints } from '../providers/spec-traits.js';
import { CREDENTIALS_HINT, credentialsProblem } from '../url-credentials.js';
import { clusterSchema, serveSchema, type ClusterSettings } from './cluster-config.js';

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

/**
 * A role's model: a spec string (`none`: no model, the role's fallback), or the config's model
 * entry plus a price and `batch: false` (a batchable role's calls stay live under `--batch`: its
 * server has no Batch API).
 */
function roleSchema(entry: z.ZodRawShape) {
  return z.union([z.string().min(1), z.object({ ...entry, price: priceSchema.optional(), batch: z.literal(false).optional() }).strict()]);
}
export type StudyRoleEntry = z.infer<ReturnType<typeof roleSchema>>;

const dateSchema = z.string().regex(/^\d{4}(-\d{2}(-\d{2})?)?$/, 'must be a date written YYYY, YYYY-MM or YYYY-MM-DD');

/** A model under test: a model entry (`entry`: the registered providers' options and the executor's) and what the tables show of it. */
function modelSchema(entry: z.ZodRawShape) {
  return z
    .object({
      ...entry,
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
      endpoints: z
        .array(z.string().regex(/^https?:\/\/[^/\s]+(\/.*)?\/v1$/, 'must be a base URL ending in /v1'))
        .min(1)
        .optional(),
      price: priceSchema.optional(),
      /** The model's own server, started on a free port by the task that runs it (`{port}` in the spec says where). */
      serve: serveSchema.optional(),
    })
    .strict();
}
export type StudyModel = z.infer<ReturnType<typeof modelSchema>>;

/** A `methods:` entry: a method id, or the id with its own settings and options. */
const methodEntrySchema = z.union([
  z.string().min(1),
  z
    .object({
      id: z.string().min(1),
      /** The entry's name (default: the method's id): its results folder, when the study has several entries (the same method twice: CONNER on NQ and on WoW). */
      name: z
        .string()
        .regex(
          /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
          'letters, digits, ".", "_" and "-", starting with a letter or digit (it names a folder, so ".." or ".x" cannot be one)',
        )
        .optional(),
      settings: z.array(z.string().min(1)).min(1).optional(),
      options: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
]);

/** The study file's schema, with the model-entry options of the providers registered when it is called. */
export function studySchema(entry: z.ZodRawShape = modelEntryShape()) {
  return z
    .object({
      name: z.string().min(1).optional(),
      models: z.array(modelSchema(entry)).min(1),
      methods: z.array(methodEntrySchema).min(1).optional(),
      /** The settings of every method entry that names none of its own. */
      settings: z.array(z.string().min(1)).min(1).optional(),
      /** Results folder (`--out` wins). */
      out: z.string().min(1).optional(),
      /** A quick look: each method's seeded subset (e.g. 50 seen + 50 unseen questions, 5 MCQs). */
      quick: z.boolean().optional(),
      limit: z.number().int().min(1).optional(),
      seed: z.number().int().min(0).optional(),
      /** Requests in flight to the models under test at once, over all models (default 256). */
      concurrency: z.number().int().min(1).max(65536).optional(),
      /** Shards, per-task resources, Slurm and Kubernetes settings (docs/cluster.md). */
      cluster: clusterSchema.optional(),
    })
    .catchall(z.unknown());
}
export type StudyFile = z.infer<ReturnType<typeof studySchema>>;

/** One method of the study, with its settings and checked options. */
export interface StudyMethod {
  method: EvaluationMethod;
  /** The entry's name (default: the method's id); unique in the study. */
  name: string;
  settings: string[];
  options: Record<string, unknown>;
  /** Where it is in the file (`methods.1`), for messages. */
  field: string;
}

/** A study with its defaults filled in and its paths resolved. */
export interface Study {
  file: string;
  /** The study file's folder: relative paths in it are read from here. */
  dir: string;
  /** SHA-256 of the file's bytes. */
  checksum: string;
  name: string;
  models: Array<StudyModel & { entry: ModelEntryOptions }>;
  methods: StudyMethod[];
  out: string | undefined;
  quick: boolean;
  limit: number | undefined;
  seed: number;
  concurrency: number;
  /** Models of the roles the study names (not the models under test), by role id; `none` is left out. */
  roles: Record<string, { entry: ModelEntry; price: Price | undefined; batch?: false }>;
  /** The `cluster:` section (docs/cluster.md). */
  cluster?: ClusterSettings;
}

/** Study fields that are neither a role nor a method option. */
const OWN_FIELDS = new Set(Object.keys(studySchema({}).shape));

/** The model entry a study model stands for (its endpoints folded into the spec, a relative GGUF path read from the study's folder). */
function modelEntry(model: StudyModel, dir: string): ModelEntryOptions {
  const { label: _l, params: _p, family: _f, tuning: _t, knowledgeCutoff: _k, backend: _b, endpoints, price: _price, serve: _s, ...entry } = model;
  const spec = specRelativeTo(entry.spec as string, dir);
  if (!endpoints) return { ...(entry as ModelEntryOptions), spec };
  return { ...(entry as ModelEntryOptions), spec: specWithEndpoints(spec, endpoints) };
}

/** A role's entry, a relative local path in its spec (`gguf:models/a.gguf`) read from the study's folder like every other relative path in it. */
function roleEntry(role: StudyRoleEntry, dir: string): Study['roles'][string] {
  if (typeof role === 'string') return { entry: specRelativeTo(role, dir), price: undefined };
  const { price, batch, ...entry } = role;
  return {
    entry: { ...(entry as ModelEntryOptions), spec: specRelativeTo((entry as { spec: string }).spec, dir) },
    price,
    ...(batch === false ? { batch } : {}),
  };
}

const HINT =
  'A study names "models" (each with "label" and "spec"), and optionally "name", "methods" (ids, or {id, settings, options}), "settings", "out", "quick", "limit", "seed", "concurrency", "cluster", the models of the methods\' roles (e.g. "judge", "nli") and the methods\' options (e.g. "maxTokens"); see examples/paper-study.yaml, examples/conner-study.yaml and docs/sweep.md.';

/**
 * The bound on alias expansion (the yaml package's `maxAliasCount`: uses of an anchor times the
 * aliases inside it): a flat alias may be used this many times, while nested aliases, whose
 * expansion grows exponentially, are refused after a few levels.
 */
const MAX_ALIAS_COUNT = 1000;

function parseStudyText(file: string, text: string): { doc: Document; json: unknown; lineCounter: LineCounter } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new InputFileError(file, lineCounter.linePos(e.pos[0]).line, undefined, `not valid YAML or JSON: ${e.message.split('\n')[0]}`, HINT);
  }
  try {
    return { doc, json: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), lineCounter };
  } catch (error) {
    // The yaml package's alias checks: an alias expanded too often (a "billion laughs" file), or one without its anchor.
    const message = error instanceof Error ? error.message : String(error);
    if (!/excessive alias count/i.test(message)) throw new InputFileError(file, undefined, undefined, `not valid YAML: ${message}`, HINT);
    throw new InputFileError(
      file,
      undefined,
      undefined,
      `its aliases (*name) expand to more than ${MAX_ALIAS_COUNT} copies of what they name; refused, since a few such lines can expand to gigabytes`,
      'Write the repeated parts out, or alias (*name) each anchor (&name) fewer times.',
    );
  }
}

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
  const { doc, json, lineCounter } = parseStudyText(file, text);
  const lineOf = (path: ReadonlyArray<PropertyKey>): number | undefined => {
    // The deepest node that exists along the path: a missing field points at its parent.
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n) as unknown[], true);
      if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
    }
    return undefined;
  };
  const fail = (path: ReadonlyArray<PropertyKey>, message: string, hint = HINT): never => {
    throw new InputFileError(file, lineOf(path), path.join('.') || undefined, message, hint);
  };
  const entryShape = modelEntryShape();
  const parsed = studySchema(entryShape).safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    // An unknown key: point at the key itself.
    fail(first.code === 'unrecognized_keys' ? [...first.path, first.keys[0]!] : first.path, first.message);
  }
  const s = parsed.data!;
  const dir = dirname(resolve(file));
  // Methods first: they say which other top-level fields are roles and options.
  const entries = s.methods ?? [defaultMethod().id];
  const methods: StudyMethod[] = entries.map((e, i) => {
    const id = typeof e === 'string' ? e : e.id;
    const method = findMethod(id);
    if (!method)
      return fail(
        ['methods', i],
        `unknown method "${id}"`,
        `Registered methods: ${listMethods()
          .map((m) => m.id)
          .join(', ')} (llmkb methods).`,
      );
    const settings = (typeof e === 'string' ? undefined : e.settings) ?? s.settings ?? [...(method.settings ?? ['default'])];
    for (const [k, setting] of settings.entries()) {
      if (!(method.settings ?? ['default']).includes(setting))
        fail(
          typeof e !== 'string' && e.settings ? ['methods', i, 'settings', k] : ['settings', k],
          `method "${id}" has no setting "${setting}"`,
          `Its settings: ${(method.settings ?? ['default']).join(', ')}.`,
        );
    }
    const shared = Object.fromEntries(Object.entries(s).filter(([k]) => !OWN_FIELDS.has(k) && method.options?.some((o) => o.key === k)));
    const own = typeof e === 'string' ? {} : (e.options ?? {});
    let options: Record<string, unknown>;
    try {
      options = checkMethodOptions(method, { ...shared, ...own }, { baseDir: dir });
    } catch (error) {
      if (!(error instanceof LlmkbError)) throw error;
      const key = /option "([^"]+)"/.exec(error.message)?.[1];
      return fail(key && key in own ? ['methods', i, 'options', key] : key ? [key] : ['methods', i], error.message, error.hint);
    }
    const name = (typeof e === 'string' ? undefined : e.name) ?? id;
    // A setting named twice runs once.
    return { method, name, settings: [...new Set(settings)], options, field: `methods.${i}` };
  });
  for (const [i, m] of methods.entries()) {
    const first = methods.findIndex((x) => x.name === m.name);
    if (first < i)
      fail(
        ['methods', i],
        `methods.${first} and methods.${i} are both named "${m.name}": their results would share a folder`,
        `Give each entry of the same method its own "name" (e.g. {id: ${m.method.id}, name: ${m.method.id}-nq, ...} and {id: ${m.method.id}, name: ${m.method.id}-wow, ...}).`,
      );
  }
  const roleIds = new Set(methods.flatMap((m) => m.method.roles.filter((r) => r.required === false).map((r) => r.id)));
  const optionKeys = new Set(methods.flatMap((m) => (m.method.options ?? []).map((o) => o.key)));
  const roles: Study['roles'] = {};
  for (const [key, value] of Object.entries(s)) {
    if (OWN_FIELDS.has(key) || optionKeys.has(key)) continue;
    if (!roleIds.has(key))
      fail(
        [key],
        `unknown field "${key}": neither a study field, nor a model role or an option of the study's methods (${methods.map((m) => m.method.id).join(', ')})`,
      );
    const role = roleSchema(entryShape).safeParse(value);
    if (!role.success) fail([key, ...role.error.issues[0]!.path], role.error.issues[0]!.message);
    if (role.data === NO_MODEL) continue;
    try {
      resolveModelSpec(typeof role.data === 'string' ? role.data : (role.data as { spec: string }).spec);
    } catch (error) {
      if (error instanceof LlmkbError) fail([key], error.message, error.hint);
      throw error;
    }
    roles[key] = roleEntry(role.data!, dir);
  }
  const labels = new Map<string, number>();
  const models = s.models.map((m, i) => {
    if (labels.has(m.label))
      fail(
        ['models', i, 'label'],
        `label "${m.label}" is used twice (models ${labels.get(m.label)} and ${i})`,
        'Each model needs its own label: it names its rows and its result folder.',
      );
    labels.set(m.label, i);
    for (const [j, url] of (m.endpoints ?? []).entries()) {
      const problem = credentialsProblem(url, 'the endpoint');
      if (problem !== undefined) fail(['models', i, 'endpoints', j], problem, CREDENTIALS_HINT);
    }
    if (m.serve && (m.endpoints || !m.spec.includes('{port}')))
      fail(
        ['models', i, m.endpoints ? 'endpoints' : 'spec'],
        m.endpoints
          ? '"serve" starts one server for the model; "endpoints" lists servers of its own'
          : "a served model's spec must say where its server is, with {port} (e.g. vllm:http://127.0.0.1:{port}/v1/MODEL)",
        'The task starts the serve command on a free port and puts that port wherever {port} is.',
      );
    try {
      const entry = modelEntry(m, dir);
      resolveModelSpec(entry.spec);
      return { ...m, entry };
    } catch (error) {
      if (error instanceof LlmkbError) return fail(['models', i, 'spec'], error.message, error.hint);
      throw error;
    }
  });
  return {
    file: resolve(file),
    dir,
    checksum: createHash('sha256').update(bytes).digest('hex'),
    name:
      s.name ??
      resolve(file)
        .replace(/^.*[\\/]/, '')
        .replace(/\.(ya?ml|json)$/i, ''),
    models,
    methods,
    out: s.out === undefined ? undefined : resolve(dir, s.out),
    quick: s.quick ?? false,
    limit: s.limit,
    seed: s.seed ?? 42,
    concurrency: s.concurrency ?? 256,
    roles,
    ...(s.cluster ? { cluster: s.cluster } : {}),
  };
}
