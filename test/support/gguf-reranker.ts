/**
 * A real GGUF reranker made offline from a tiny llama GGUF (stories260K): llama.cpp's `llama`
 * architecture loads no classification head, but `qwen3` (Qwen3-Reranker) does, and its blocks are
 * llama's plus a per-head RMS norm of q and k. So the file is rewritten as `qwen3`:
 *
 *   - every `llama.*` key becomes `qwen3.*`; `qwen3.pooling_type` = 4 (rank) and
 *     `qwen3.classifier.output_labels` = ["yes", "no"] (two outputs, as Qwen3-Reranker);
 *   - `blk.N.attn_q_norm.weight` / `attn_k_norm.weight` are added as ones (head size);
 *   - `cls.output.weight` (n_embd x 2) is the head the test chooses.
 *
 * llama.cpp then scores a (query, document) input as softmax(cls · h_last)[0], where h_last is
 * the final (output-normed) hidden state of the input's last token (llama-graph.cpp, pooling
 * "rank", qwen3 uses the last token and a softmax). The same file with pooling 3 (last) returns
 * h_last itself as the embedding, which is how a test computes the expected score by hand.
 */
import { readFileSync, writeFileSync } from 'node:fs';

enum ValueType {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
}
const FIXED_SIZE: Partial<Record<ValueType, number>> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const GGML_F32 = 0;

interface KeyValue {
  key: string;
  /** The value's type and bytes, copied as they are. */
  raw: Buffer;
}
interface TensorEntry {
  name: string;
  dims: bigint[];
  type: number;
  data: Buffer;
}

class Reader {
  offset = 0;
  constructor(readonly buffer: Buffer) {}
  u32(): number {
    const v = this.buffer.readUInt32LE(this.offset);
    this.offset += 4;
    return v;
  }
  u64(): bigint {
    const v = this.buffer.readBigUInt64LE(this.offset);
    this.offset += 8;
    return v;
  }
  string(): string {
    const length = Number(this.u64());
    const s = this.buffer.toString('utf8', this.offset, this.offset + length);
    this.offset += length;
    return s;
  }
  skipValue(type: ValueType): void {
    if (type === ValueType.STRING) this.string();
    else if (type === ValueType.ARRAY) {
      const itemType = this.u32() as ValueType;
      const count = Number(this.u64());
      for (let i = 0; i < count; i++) this.skipValue(itemType);
    } else this.offset += FIXED_SIZE[type]!;
  }
}

function u32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
}
function u64(v: number | bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  return b;
}
function str(s: string): Buffer {
  const bytes = Buffer.from(s, 'utf8');
  return Buffer.concat([u64(bytes.length), bytes]);
}
function f32s(values: number[]): Buffer {
  return Buffer.from(Float32Array.from(values).buffer);
}

function readGguf(path: string): { keyValues: KeyValue[]; tensors: TensorEntry[]; alignment: number } {
  const r = new Reader(readFileSync(path));
  if (r.buffer.toString('latin1', 0, 4) !== 'GGUF') throw new Error(`${path} is not GGUF`);
  r.offset = 4;
  const version = r.u32();
  if (version !== 3) throw new Error(`GGUF version ${version}: only 3 is rewritten here`);
  const tensorCount = Number(r.u64());
  const kvCount = Number(r.u64());
  const keyValues: KeyValue[] = [];
  let alignment = 32;
  for (let i = 0; i < kvCount; i++) {
    const key = r.string();
    const start = r.offset;
    const type = r.u32() as ValueType;
    if (key === 'general.alignment') alignment = r.buffer.readUInt32LE(r.offset);
    r.skipValue(type);
    keyValues.push({ key, raw: r.buffer.subarray(start, r.offset) });
  }
  const infos: Array<{ name: string; dims: bigint[]; type: number; offset: bigint }> = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = r.string();
    const nDims = r.u32();
    const dims = Array.from({ length: nDims }, () => r.u64());
    const type = r.u32();
    infos.push({ name, dims, type, offset: r.u64() });
  }
  const dataStart = Math.ceil(r.offset / alignment) * alignment;
  const tensors = infos.map((t) => {
    if (t.type !== GGML_F32) throw new Error(`${t.name}: type ${t.type}; only F32 tensors are rewritten here`);
    const size = 4 * t.dims.reduce((a, b) => a * Number(b), 1);
    const at = dataStart + Number(t.offset);
    return { name: t.name, dims: t.dims, type: t.type, data: r.buffer.subarray(at, at + size) };
  });
  return { keyValues, tensors, alignment };
}

function writeGguf(path: string, keyValues: KeyValue[], tensors: TensorEntry[], alignment: number): void {
  const pad = (n: number): number => Math.ceil(n / alignment) * alignment;
  const header: Buffer[] = [Buffer.from('GGUF', 'latin1'), u32(3), u64(tensors.length), u64(keyValues.length)];
  for (const kv of keyValues) header.push(str(kv.key), kv.raw);
  let offset = 0;
  const data: Buffer[] = [];
  for (const t of tensors) {
    header.push(str(t.name), u32(t.dims.length), ...t.dims.map(u64), u32(t.type), u64(offset));
    data.push(t.data, Buffer.alloc(pad(t.data.length) - t.data.length));
    offset += pad(t.data.length);
  }
  const head = Buffer.concat(header);
  writeFileSync(path, Buffer.concat([head, Buffer.alloc(pad(head.length) - head.length), ...data]));
}

const uint32Value = (v: number): Buffer => Buffer.concat([u32(ValueType.U32), u32(v)]);
const stringValue = (s: string): Buffer => Buffer.concat([u32(ValueType.STRING), str(s)]);
const stringArrayValue = (items: string[]): Buffer => Buffer.concat([u32(ValueType.ARRAY), u32(ValueType.STRING), u64(items.length), ...items.map(str)]);

export interface RerankerHead {
  /** One row of n_embd weights per output; row 0 is the first label (the relevance node-llama-cpp's `rank` reports). */
  classifier: [number[], number[]];
  /** 4 = rank (the reranker); 3 = last (the same network's last hidden state, for the test). */
  poolingType: 3 | 4;
  /** Written as `tokenizer.chat_template.rerank`, with {query} and {document}, when given. */
  rerankTemplate?: string;
  /** `qwen3.classifier.output_labels` (default ["yes", "no"], as Qwen3-Reranker). */
  labels?: [string, string];
}

/** The embedding size of a llama GGUF (`llama.embedding_length`). */
export function ggufEmbeddingLength(path: string): number {
  const { keyValues } = readGguf(path);
  const kv = keyValues.find((k) => k.key === 'llama.embedding_length');
  if (!kv) throw new Error(`${path}: no llama.embedding_length`);
  return kv.raw.readUInt32LE(4);
}

/** Writes `target`: the llama GGUF at `source` as a qwen3 reranker with the given head. */
export function writeGgufReranker(source: string, target: string, head: RerankerHead): void {
  const { keyValues, tensors, alignment } = readGguf(source);
  const get = (key: string): number => keyValues.find((k) => k.key === key)!.raw.readUInt32LE(4);
  const nEmbd = get('llama.embedding_length');
  const headSize = nEmbd / get('llama.attention.head_count');
  const layers = get('llama.block_count');
  if (head.classifier.some((row) => row.length !== nEmbd)) throw new Error(`classifier rows must have ${nEmbd} weights`);
  const kvs: KeyValue[] = keyValues
    .filter((kv) => !kv.key.startsWith('tokenizer.chat_template'))
    .map((kv) =>
      kv.key === 'general.architecture'
        ? { key: kv.key, raw: stringValue('qwen3') }
        : kv.key.startsWith('llama.')
          ? { key: `qwen3.${kv.key.slice('llama.'.length)}`, raw: kv.raw }
          : kv,
    );
  kvs.push({ key: 'qwen3.pooling_type', raw: uint32Value(head.poolingType) });
  kvs.push({ key: 'qwen3.classifier.output_labels', raw: stringArrayValue(head.labels ?? ['yes', 'no']) });
  if (head.rerankTemplate !== undefined) kvs.push({ key: 'tokenizer.chat_template.rerank', raw: stringValue(head.rerankTemplate) });
  const ones = f32s(Array.from({ length: headSize }, () => 1));
  const out: TensorEntry[] = [];
  for (const t of tensors) {
    out.push(t);
    const block = /^blk\.(\d+)\.attn_output\.weight$/.exec(t.name);
    if (block && Number(block[1]) < layers) {
      out.push({ name: `blk.${block[1]}.attn_q_norm.weight`, dims: [BigInt(headSize)], type: GGML_F32, data: ones });
      out.push({ name: `blk.${block[1]}.attn_k_norm.weight`, dims: [BigInt(headSize)], type: GGML_F32, data: ones });
    }
  }
  // ggml's ne0 is the row length: n_embd weights per output.
  out.push({ name: 'cls.output.weight', dims: [BigInt(nEmbd), 2n], type: GGML_F32, data: f32s(head.classifier.flat()) });
  writeGguf(target, kvs, out, alignment);
}
