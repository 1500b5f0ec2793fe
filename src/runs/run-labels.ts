/**
 * Default run labels a person can read: the model file's base name (`gguf:models/stories260K.gguf`
 * -> `stories260K`) or the served model's name (`vllm:http://host:8000/v1/qwen2` -> `qwen2`),
 * with a short hash of the whole spec only where that name already labels another model's
 * results in the same folder (`stories260K-3f2a9c1d`), so two models never share result files.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resultFileString, runsInFolder } from '../io/result-files.js';

/** Endings a model file's name drops in its label. */
const FILE_ENDINGS = /\.(gguf|jsonl|json|onnx|bin|safetensors|ya?ml)$/i;

/** The name a model spec's model goes by: the last path segment of what follows its provider prefix, without a file ending. */
export function readableModelName(spec: string): string {
  let rest = spec.trim();
  // `provider:REST`, but not a Windows drive letter or a bare URL's scheme.
  const prefix = /^([A-Za-z][\w.+-]*):(?!\/\/)/.exec(rest);
  if (prefix && prefix[1]!.length > 1) rest = rest.slice(prefix[0].length);
  rest = rest.replace(/[?#].*$/, '').replace(/\/+$/, '');
  const last = rest.slice(rest.lastIndexOf('/') + 1).replace(/^.*\\/, '');
  // `llama3.1:8b`, `...-GGUF:Q4_K_M`: a tag after a colon stays, joined by a dash (a label is also a file name).
  const name = last
    .replace(FILE_ENDINGS, '')
    .replace(/:/g, '-')
    .replace(/[\s\u0000-\u001f]+/g, '_');
  return name === '' || name === '.' || name === '..' ? 'model' : name;
}

/** A short hash of a model spec (8 hex digits), what tells two models of one name apart. */
export function specHash(spec: string): string {
  return createHash('sha256').update(spec).digest('hex').slice(0, 8);
}

/** The label and model of each run whose summary is in `dir` (none when the folder does not exist). */
function labelledRuns(dir: string): Array<{ label: string; spec?: string; identity?: string }> {
  if (!existsSync(dir)) return [];
  const out: Array<{ label: string; spec?: string; identity?: string }> = [];
  for (const f of runsInFolder(dir)) {
    if (!f.has.summary) continue;
    try {
      const s = JSON.parse(readFileSync(f.summary, 'utf8')) as { model?: unknown; modelIdentity?: unknown };
      if (typeof s.model !== 'string') continue;
      const spec = resultFileString(f.execution, 'modelSpec');
      out.push({ label: s.model, ...(spec ? { spec } : {}), ...(typeof s.modelIdentity === 'string' ? { identity: s.modelIdentity } : {}) });
    } catch {
      // An unreadable summary names no label; listing the folder says what is wrong with it.
    }
  }
  return out;
}

/**
 * The default label of a model in a results folder: its readable name, or the name and a hash
 * of its spec when the folder holds results of another model under that name (another spec;
 * for results written without their spec, another model identity).
 */
export function defaultRunLabel(spec: string, options: { outDir?: string; identity?: string } = {}): string {
  const name = readableModelName(spec);
  if (options.outDir === undefined) return name;
  const other = labelledRuns(options.outDir).some(
    (r) =>
      r.label === name &&
      (r.spec !== undefined ? r.spec !== spec : options.identity !== undefined && r.identity !== undefined && r.identity !== options.identity),
  );
  return other ? `${name}-${specHash(spec)}` : name;
}
