/**
 * In-process ONNX sequence-pair classifiers through transformers.js (`@huggingface/transformers`):
 * an NLI cross-encoder (e.g. cross-encoder/nli-deberta-v3-base) or a relevance cross-encoder
 * (e.g. cross-encoder/ms-marco-MiniLM-L-6-v2), from a local folder in the Hugging Face layout
 * (config.json with id2label, tokenizer.json, onnx/model.onnx, as Optimum or the Xenova/* repos
 * ship them).
 *
 * The model's raw logits are read and llmkb applies the activation itself, as for the server
 * backends (src/providers/classification/labels.ts): NLI = softmax over the labels mapped by
 * id2label (or the configured `labels`), relevance = sigmoid of a one-logit cross-encoder or the
 * softmax probability of a multi-logit model's relevant label (monoBERT), coherence likewise for
 * one paragraph (task `coherence`: a single text, no pair).
 *
 * transformers.js is an optional peer dependency (it brings onnxruntime, ~450 MB installed): it is
 * imported only when an `onnx:` model is created, and a clear error names it when it is missing.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileSha256 } from '../llama/gguf-loading.js';
import { ContextOverflowError, ModelCallError, ModelFileError, ModelSpecError, UnsupportedCapabilityError } from '../../errors.js';
import { InProcessClassifier } from '../classification/classifier-base.js';
import { nliScores, positiveEntry, positiveIndex, positiveScore, type LabelMap } from '../classification/labels.js';
import type { CallOptions } from '../language-model.js';
import type { ClassificationRequest, ClassificationResult, ClassificationTask } from '../model-kinds.js';

export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';

export interface OnnxClassifierSettings {
  /** The model folder (config.json, tokenizer.json, onnx/model.onnx). */
  folder: string;
  /** As the user named it (the spec's path). */
  modelId: string;
  task: ClassificationTask;
  /** The model's label names -> NLI labels (`LABEL_0`, ...), or which output is "relevant" / "coherent". */
  labels?: LabelMap;
  /** Cut pairs longer than the model's window (default false: such a pair is an error, not a silent cut). */
  truncate?: boolean;
}

/** The parts of transformers.js used here (its own types are not needed at compile time). */
interface TransformersTensor {
  dims: number[];
  data: ArrayLike<number | bigint>;
}
type Tokenizer = ((
  text: string[],
  options: { text_pair?: string[]; padding: boolean; truncation: boolean },
) => { input_ids: TransformersTensor; attention_mask: TransformersTensor }) & { model_max_length?: number };
interface SequenceClassifier {
  (inputs: Record<string, unknown>): Promise<{ logits: TransformersTensor }>;
  config: { id2label?: Record<string, string> };
  dispose(): Promise<unknown>;
}
interface TransformersModule {
  AutoTokenizer: { from_pretrained(path: string, options: object): Promise<Tokenizer> };
  AutoModelForSequenceClassification: { from_pretrained(path: string, options: object): Promise<SequenceClassifier> };
}

/** transformers.js, or a named error saying how to install it. */
export async function importTransformers(importer: () => Promise<unknown> = () => import(TRANSFORMERS_PACKAGE)): Promise<TransformersModule> {
  try {
    return (await importer()) as TransformersModule;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new UnsupportedCapabilityError(`onnx: models need the optional package ${TRANSFORMERS_PACKAGE}, which is not installed`, {
        hint: `Install it next to llmkb: npm install ${TRANSFORMERS_PACKAGE} (it brings onnxruntime; ONNXRUNTIME_NODE_INSTALL=skip skips its CUDA download on Linux). Or serve the model with TEI (tei:) or vLLM (vllm-score:, vllm-classify:).`,
        cause: error,
      });
    }
    throw error;
  }
}

const MODEL_FILES = ['config.json', 'tokenizer.json', join('onnx', 'model.onnx')];

/** One request's pairs are one padded batch, one forward pass (./onnx-classifier.ts header). */
export class OnnxClassifier extends InProcessClassifier {
  readonly provider = 'onnx';
  readonly #settings: OnnxClassifierSettings;
  readonly #tokenizer: Tokenizer;
  readonly #model: SequenceClassifier;
  readonly #labelNames: string[];

  private constructor(settings: OnnxClassifierSettings, identity: string, tokenizer: Tokenizer, model: SequenceClassifier) {
    super({ modelId: settings.modelId, cacheIdentity: identity, tasks: [settings.task] });
    this.#settings = settings;
    this.#tokenizer = tokenizer;
    this.#model = model;
    const id2label = model.config.id2label ?? {};
    this.#labelNames = Object.keys(id2label)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => id2label[k]!);
  }

  static async load(settings: OnnxClassifierSettings, transformers?: TransformersModule): Promise<OnnxClassifier> {
    const hash = createHash('sha256');
    for (const file of MODEL_FILES) {
      const path = join(settings.folder, file);
      try {
        if (!(await stat(path)).isFile()) throw new Error('not a file');
      } catch {
        throw new ModelFileError(`${settings.folder} is not an ONNX model folder: ${file} is missing`, {
          hint: 'onnx: takes a folder in the Hugging Face layout: config.json (with id2label), tokenizer.json and onnx/model.onnx, as the Xenova/* repositories ship them. `optimum-cli export onnx --task text-classification` writes model.onnx beside config.json: move it into onnx/.',
        });
      }
      hash.update(`${file}\0`).update(await readFile(path));
    }
    // Weights over 2 GB live beside the graph (ONNX external data): they are the model too.
    const external = join(settings.folder, 'onnx', 'model.onnx_data');
    if (
      await stat(external).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      hash.update('onnx/model.onnx_data\0').update(await fileSha256(external));
    const t = transformers ?? (await importTransformers());
    // Local files only: a typo must not turn into a download from the Hub. (transformers.js's
    // global `env` is left as the application set it.)
    const options = { local_files_only: true };
    let tokenizer: Tokenizer;
    let model: SequenceClassifier;
    try {
      tokenizer = await t.AutoTokenizer.from_pretrained(settings.folder, options);
      model = await t.AutoModelForSequenceClassification.from_pretrained(settings.folder, { ...options, dtype: 'fp32', device: 'cpu' });
    } catch (error) {
      throw new ModelFileError(`transformers.js could not load ${settings.folder}: ${error instanceof Error ? error.message : String(error)}`, {
        hint: 'Check that the folder holds a sequence-classification model exported to ONNX (onnx/model.onnx) with its tokenizer.json.',
        cause: error,
      });
    }
    const labels = settings.labels ? `:labels=${JSON.stringify(Object.entries(settings.labels).sort())}` : '';
    // The files' content, not the path, is the identity: a re-exported model never reuses old scores.
    const identity = `onnx:sha256=${hash.digest('hex')}:task=${settings.task}:scores=raw:truncate=${settings.truncate ?? false}${labels}`;
    const classifier = new OnnxClassifier(settings, identity, tokenizer, model);
    classifier.#checkLabels();
    return classifier;
  }

  /** Fails at start-up, not mid-run, when the model's labels cannot serve the task. */
  #checkLabels(): void {
    const names = this.#labelNames;
    const task = this.#settings.task;
    const where = `onnx model ${this.modelId}`;
    if (names.length === 0)
      throw new ModelSpecError(`${where} has no labels (config.json has no id2label)`, {
        hint: 'Export the model with its config.json (id2label names each output).',
      });
    if (task === 'nli')
      nliScores(
        names.map((label) => ({ label, score: 0 })),
        'logit',
        this.#settings.labels,
        where,
      );
    else if (names.length > 1) positiveIndex(names, task, this.#settings.labels, where);
  }

  async classify(request: ClassificationRequest, options: CallOptions = {}): Promise<ClassificationResult> {
    if (!this.tasks.includes(request.task)) {
      throw new ModelCallError(`onnx model ${this.modelId} does ${this.tasks.join(', ')}, not ${request.task}`, { retryable: false });
    }
    if (request.pairs.length === 0) return { scores: [], usage: { promptTokens: 0, completionTokens: 0, evaluatedTokens: 0 } };
    return this.serially(() => this.#classify(request, options));
  }

  async #classify(request: ClassificationRequest, options: CallOptions): Promise<ClassificationResult> {
    options.signal?.throwIfAborted();
    const texts = request.pairs.map((p) => p.text);
    const textPairs = request.pairs.map((p) => p.textPair);
    const truncate = this.#settings.truncate ?? false;
    // Coherence scores one paragraph: a single text, no second segment.
    const inputs = this.#tokenizer(texts, { ...(request.task === 'coherence' ? {} : { text_pair: textPairs }), padding: true, truncation: truncate });
    const [batch, length] = inputs.attention_mask.dims as [number, number];
    const mask = inputs.attention_mask.data;
    const lengths = Array.from({ length: batch }, (_, i) => {
      let n = 0;
      for (let j = 0; j < length; j++) n += Number(mask[i * length + j]);
      return n;
    });
    const window = this.#tokenizer.model_max_length;
    if (!truncate && window !== undefined && window < 1e9) {
      const over = lengths.findIndex((n) => n > window);
      if (over !== -1)
        throw new ContextOverflowError(
          `${request.task === 'coherence' ? 'text' : 'pair'} ${over} is ${lengths[over]} tokens, over the ${window}-token window of onnx model ${this.modelId} (set "truncate": true for this model to cut such inputs)`,
        );
    }
    const { logits } = await this.#model(inputs as unknown as Record<string, unknown>);
    const [rows, labels] = logits.dims as [number, number];
    const where = `onnx model ${this.modelId}`;
    if (rows !== batch || labels !== this.#labelNames.length) {
      throw new ModelCallError(`${where} returned logits of shape [${logits.dims.join(', ')}] for ${batch} pairs and ${this.#labelNames.length} labels`, {
        retryable: false,
      });
    }
    const data = logits.data;
    const scores = Array.from({ length: batch }, (_, i) => {
      const row = this.#labelNames.map((label, l) => ({ label, score: Number(data[i * labels + l]) }));
      const task = request.task;
      if (task === 'nli') return nliScores(row, 'logit', this.#settings.labels, where) as Record<string, number>;
      return positiveEntry(task, positiveScore(row, task, 'logit', this.#settings.labels, where));
    });
    const tokens = lengths.reduce((a, b) => a + b, 0);
    return { scores, usage: { promptTokens: tokens, completionTokens: 0, evaluatedTokens: tokens } };
  }

  protected async dispose(): Promise<void> {
    await this.#model.dispose();
  }
}
