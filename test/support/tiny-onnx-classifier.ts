/**
 * A real, tiny sequence-pair classifier in the Hugging Face folder layout transformers.js loads
 * (config.json with id2label, tokenizer.json, tokenizer_config.json, onnx/model.onnx), written
 * from weights the test chooses, so the test can compute the logits by hand:
 *
 *   tokens  = [CLS] a-words [SEP] b-words [SEP]      (WordLevel tokenizer, whitespace split)
 *   h       = mean of E[token] over the tokens        (padding masked out)
 *   logits  = h · W + b
 *
 * The ONNX graph (opset 13) is Gather -> Mul(mask) -> ReduceSum / ReduceSum(mask) -> MatMul -> Add,
 * encoded here with a minimal protobuf writer (no model of this kind exists offline, and no ONNX
 * library is needed for six operators).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TinyClassifierWeights {
  /** Words of the vocabulary, after the four special tokens [PAD] [UNK] [CLS] [SEP] (ids 0-3). */
  words: string[];
  /** One row of `dim` numbers per token id (4 + words.length rows). */
  embeddings: number[][];
  /** dim x labels. */
  weights: number[][];
  bias: number[];
  /** id2label of config.json, e.g. ['CONTRADICTION', 'ENTAILMENT', 'NEUTRAL'] or ['LABEL_0']. */
  labels: string[];
}

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'] as const;

// --- protobuf wire format -------------------------------------------------------------------

function varint(value: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

type Field = [number, 'varint', number | bigint] | [number, 'bytes', Uint8Array | string | Field[]];

function message(fields: Field[]): Uint8Array {
  const parts: number[] = [];
  for (const [number, kind, value] of fields) {
    if (kind === 'varint') {
      parts.push(...varint((number << 3) | 0), ...varint(value as number));
    } else {
      const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value instanceof Uint8Array ? value : message(value as Field[]);
      parts.push(...varint((number << 3) | 2), ...varint(bytes.length), ...bytes);
    }
  }
  return Uint8Array.from(parts);
}

// --- ONNX messages (onnx.proto field numbers) ------------------------------------------------

const FLOAT = 1;
const INT64 = 7;

function tensor(name: string, dims: number[], dataType: number, data: number[]): Field[] {
  const raw = dataType === FLOAT ? new Uint8Array(Float32Array.from(data).buffer) : new Uint8Array(BigInt64Array.from(data.map(BigInt)).buffer);
  return [...dims.map((d): Field => [1, 'varint', d]), [2, 'varint', dataType], [8, 'bytes', name], [9, 'bytes', raw]];
}

function valueInfo(name: string, elemType: number, dims: Array<number | string>): Field[] {
  const shape: Field[] = dims.map((d): Field => [1, 'bytes', typeof d === 'number' ? [[1, 'varint', d]] : [[2, 'bytes', d]]]);
  return [
    [1, 'bytes', name],
    [
      2,
      'bytes',
      [
        [
          1,
          'bytes',
          [
            [1, 'varint', elemType],
            [2, 'bytes', shape],
          ],
        ],
      ],
    ],
  ];
}

function node(op: string, inputs: string[], outputs: string[], attributes: Field[][] = []): Field[] {
  return [
    ...inputs.map((i): Field => [1, 'bytes', i]),
    ...outputs.map((o): Field => [2, 'bytes', o]),
    [3, 'bytes', `${op}_${outputs[0]}`],
    [4, 'bytes', op],
    ...attributes.map((a): Field => [5, 'bytes', a]),
  ];
}

/** AttributeProto of type INT (type 2). */
function intAttribute(name: string, value: number): Field[] {
  return [
    [1, 'bytes', name],
    [3, 'varint', value],
    [20, 'varint', 2],
  ];
}

export function tinyClassifierOnnx(w: TinyClassifierWeights): Uint8Array {
  const vocab = SPECIAL_TOKENS.length + w.words.length;
  const dim = w.embeddings[0]!.length;
  const labels = w.bias.length;
  const graph: Field[] = [
    [1, 'bytes', node('Gather', ['embeddings', 'input_ids'], ['embedded'])],
    [1, 'bytes', node('Cast', ['attention_mask'], ['mask'], [intAttribute('to', FLOAT)])],
    [1, 'bytes', node('Unsqueeze', ['mask', 'last_axis'], ['mask3'])],
    [1, 'bytes', node('Mul', ['embedded', 'mask3'], ['masked'])],
    [1, 'bytes', node('ReduceSum', ['masked', 'token_axis'], ['summed'], [intAttribute('keepdims', 0)])],
    [1, 'bytes', node('ReduceSum', ['mask3', 'token_axis'], ['count'], [intAttribute('keepdims', 0)])],
    [1, 'bytes', node('Div', ['summed', 'count'], ['pooled'])],
    [1, 'bytes', node('MatMul', ['pooled', 'classifier'], ['projected'])],
    [1, 'bytes', node('Add', ['projected', 'classifier_bias'], ['logits'])],
    [2, 'bytes', 'tiny_pair_classifier'],
    [5, 'bytes', tensor('embeddings', [vocab, dim], FLOAT, w.embeddings.flat())],
    [5, 'bytes', tensor('classifier', [dim, labels], FLOAT, w.weights.flat())],
    [5, 'bytes', tensor('classifier_bias', [labels], FLOAT, w.bias)],
    [5, 'bytes', tensor('last_axis', [1], INT64, [-1])],
    [5, 'bytes', tensor('token_axis', [1], INT64, [1])],
    [11, 'bytes', valueInfo('input_ids', INT64, ['batch', 'sequence'])],
    [11, 'bytes', valueInfo('attention_mask', INT64, ['batch', 'sequence'])],
    [12, 'bytes', valueInfo('logits', FLOAT, ['batch', labels])],
  ];
  // ModelProto: ir_version 8, producer, graph, opset_import {domain "", version 13}.
  return message([
    [1, 'varint', 8],
    [2, 'bytes', 'llmkb-test'],
    [7, 'bytes', graph],
    [
      8,
      'bytes',
      [
        [1, 'bytes', ''],
        [2, 'varint', 13],
      ],
    ],
  ]);
}

/** Writes the model folder; returns its path. */
export function writeTinyClassifier(dir: string, w: TinyClassifierWeights): string {
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  const vocab: Record<string, number> = {};
  [...SPECIAL_TOKENS, ...w.words].forEach((t, i) => (vocab[t] = i));
  const id2label = Object.fromEntries(w.labels.map((l, i) => [String(i), l]));
  const label2id = Object.fromEntries(w.labels.map((l, i) => [l, i]));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify(
      { model_type: 'bert', architectures: ['BertForSequenceClassification'], id2label, label2id, num_labels: w.labels.length, max_position_embeddings: 64 },
      null,
      2,
    ),
  );
  const special = (content: string, id: number): object => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  writeFileSync(
    join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: SPECIAL_TOKENS.map((t, i) => special(t, i)),
      normalizer: { type: 'Lowercase' },
      pre_tokenizer: { type: 'Whitespace' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
        pair: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
          { Sequence: { id: 'B', type_id: 1 } },
          { SpecialToken: { id: '[SEP]', type_id: 1 } },
        ],
        special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
      },
      decoder: null,
      model: { type: 'WordLevel', vocab, unk_token: '[UNK]' },
    }),
  );
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      model_max_length: 64,
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      do_lower_case: true,
    }),
  );
  writeFileSync(join(dir, 'onnx', 'model.onnx'), tinyClassifierOnnx(w));
  return dir;
}

/** The token ids of a pair (or, without `textPair`, of one text) as the tokenizer above makes them (lower-cased words; unknown -> [UNK]). */
export function tinyClassifierIds(w: TinyClassifierWeights, text: string, textPair?: string): number[] {
  const id = (word: string): number => {
    const i = w.words.indexOf(word.toLowerCase());
    return i === -1 ? 1 : SPECIAL_TOKENS.length + i;
  };
  const words = (s: string): string[] => s.match(/\w+|[^\w\s]+/g) ?? [];
  return [2, ...words(text).map(id), 3, ...(textPair === undefined ? [] : [...words(textPair).map(id), 3])];
}

/** The logits computed by hand from the weights: mean embedding, times W, plus b. */
export function tinyClassifierLogits(w: TinyClassifierWeights, text: string, textPair?: string): number[] {
  const ids = tinyClassifierIds(w, text, textPair);
  const f = Math.fround;
  const dim = w.embeddings[0]!.length;
  const mean = Array.from({ length: dim }, (_, d) => ids.reduce((s, id) => s + f(w.embeddings[id]![d]!), 0) / ids.length);
  return w.bias.map((b, l) => mean.reduce((s, m, d) => s + m * f(w.weights[d]![l]!), 0) + f(b));
}
