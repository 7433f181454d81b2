// A minimal GGUF v3 writer: header, typed metadata key/value pairs, tensor infos and F32 tensor
// data, each tensor starting on an alignment boundary. Just enough of the format for llama.cpp
// to load a model kb built; nothing here knows about GPT-2 (gpt2-gguf.ts maps the weights).
//
// Layout (all little-endian): "GGUF", version u32, tensor count u64, metadata count u64, the
// metadata, the tensor infos (name, n_dims u32, dims u64[], type u32, offset u64), padding to
// the alignment, then the tensor data; offsets count from the start of that data section.
// Dimensions are ggml's order, the fastest-varying first: a row-major [rows, cols] matrix
// is written as dims [cols, rows].

import { closeSync, openSync, writeSync } from 'node:fs';

/** GGUF metadata value types (gguf.h). */
export const GGUF_TYPE = {
  UINT8: 0,
  INT8: 1,
  UINT16: 2,
  INT16: 3,
  UINT32: 4,
  INT32: 5,
  FLOAT32: 6,
  BOOL: 7,
  STRING: 8,
  ARRAY: 9,
  UINT64: 10,
  INT64: 11,
  FLOAT64: 12,
} as const;

/** ggml tensor type of 32-bit floats. */
export const GGML_TYPE_F32 = 0;
/** llama.cpp's default when the file has no `general.alignment` key. */
export const GGUF_DEFAULT_ALIGNMENT = 32;

const GGUF_MAGIC = 'GGUF';
const GGUF_VERSION = 3;

/** The scalar and array kinds this writer emits (enough for a model's hyperparameters and vocabulary). */
export type GgufValue =
  | { type: 'uint32'; value: number }
  | { type: 'int32'; value: number }
  | { type: 'float32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: readonly string[] }
  | { type: 'int32[]'; value: ArrayLike<number> };

export interface GgufTensor {
  name: string;
  /** ggml order: dims[0] varies fastest. */
  dims: readonly number[];
  /** F32 data; called when the tensor is written, so big models need not sit in memory twice. */
  data: () => Float32Array;
}

/** Grows as it is written; a model's vocabulary makes the header a few MB. */
class ByteWriter {
  private buffer = Buffer.alloc(1 << 20);
  length = 0;

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const next = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }

  u32(value: number): void {
    this.reserve(4);
    this.buffer.writeUInt32LE(value, this.length);
    this.length += 4;
  }

  i32(value: number): void {
    this.reserve(4);
    this.buffer.writeInt32LE(value, this.length);
    this.length += 4;
  }

  u64(value: number): void {
    this.reserve(8);
    this.buffer.writeBigUInt64LE(BigInt(value), this.length);
    this.length += 8;
  }

  f32(value: number): void {
    this.reserve(4);
    this.buffer.writeFloatLE(value, this.length);
    this.length += 4;
  }

  u8(value: number): void {
    this.reserve(1);
    this.buffer.writeUInt8(value, this.length);
    this.length += 1;
  }

  /** gguf_string: u64 byte length, then UTF-8 bytes without a terminator. */
  string(value: string): void {
    const bytes = Buffer.from(value, 'utf8');
    this.u64(bytes.length);
    this.reserve(bytes.length);
    bytes.copy(this.buffer, this.length);
    this.length += bytes.length;
  }

  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment;
    this.reserve(pad);
    this.buffer.fill(0, this.length, this.length + pad);
    this.length += pad;
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

function writeValue(out: ByteWriter, value: GgufValue): void {
  switch (value.type) {
    case 'uint32':
      out.u32(GGUF_TYPE.UINT32);
      out.u32(value.value);
      return;
    case 'int32':
      out.u32(GGUF_TYPE.INT32);
      out.i32(value.value);
      return;
    case 'float32':
      out.u32(GGUF_TYPE.FLOAT32);
      out.f32(value.value);
      return;
    case 'bool':
      out.u32(GGUF_TYPE.BOOL);
      out.u8(value.value ? 1 : 0);
      return;
    case 'string':
      out.u32(GGUF_TYPE.STRING);
      out.string(value.value);
      return;
    case 'string[]':
      out.u32(GGUF_TYPE.ARRAY);
      out.u32(GGUF_TYPE.STRING);
      out.u64(value.value.length);
      for (const s of value.value) out.string(s);
      return;
    case 'int32[]':
      out.u32(GGUF_TYPE.ARRAY);
      out.u32(GGUF_TYPE.INT32);
      out.u64(value.value.length);
      for (let i = 0; i < value.value.length; i++) out.i32(value.value[i]);
      return;
  }
}

function elementCount(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

/**
 * Writes a GGUF v3 file of F32 tensors. The alignment comes from the `general.alignment`
 * metadata entry when present (it must then be a uint32 power of two), else 32.
 * Returns the file's size in bytes.
 */
export function writeGguf(path: string, metadata: ReadonlyMap<string, GgufValue>, tensors: readonly GgufTensor[]): number {
  const alignmentEntry = metadata.get('general.alignment');
  const alignment = alignmentEntry?.type === 'uint32' ? alignmentEntry.value : GGUF_DEFAULT_ALIGNMENT;
  if (alignmentEntry && (alignmentEntry.type !== 'uint32' || alignment < 1 || (alignment & (alignment - 1)) !== 0)) {
    throw new Error('gguf: general.alignment must be a uint32 power of two');
  }
  const names = new Set<string>();
  for (const t of tensors) {
    if (names.has(t.name)) throw new Error(`gguf: tensor "${t.name}" appears twice`);
    names.add(t.name);
    if (t.dims.length < 1 || t.dims.length > 4 || t.dims.some((d) => !Number.isInteger(d) || d < 1)) {
      throw new Error(`gguf: tensor "${t.name}" has bad dims [${t.dims.join(', ')}] (1 to 4 positive integers)`);
    }
  }

  const header = new ByteWriter();
  for (const ch of GGUF_MAGIC) header.u8(ch.charCodeAt(0));
  header.u32(GGUF_VERSION);
  header.u64(tensors.length);
  header.u64(metadata.size);
  for (const [key, value] of metadata) {
    header.string(key);
    writeValue(header, value);
  }
  const offsets: number[] = [];
  let offset = 0;
  for (const t of tensors) {
    offsets.push(offset);
    header.string(t.name);
    header.u32(t.dims.length);
    for (const d of t.dims) header.u64(d);
    header.u32(GGML_TYPE_F32);
    header.u64(offset);
    const bytes = elementCount(t.dims) * Float32Array.BYTES_PER_ELEMENT;
    offset += bytes + ((alignment - (bytes % alignment)) % alignment);
  }
  header.padTo(alignment);

  const fd = openSync(path, 'w');
  try {
    let written = writeAll(fd, header.bytes());
    const padding = Buffer.alloc(alignment);
    for (const [i, t] of tensors.entries()) {
      const data = t.data();
      if (data.length !== elementCount(t.dims)) {
        throw new Error(`gguf: tensor "${t.name}" has ${data.length} values, dims [${t.dims.join(', ')}] need ${elementCount(t.dims)}`);
      }
      if (written - header.length !== offsets[i]) throw new Error(`gguf: tensor "${t.name}" landed off its offset`);
      written += writeAll(fd, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      const pad = (alignment - (data.byteLength % alignment)) % alignment;
      written += writeAll(fd, padding.subarray(0, pad));
    }
    return written;
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, bytes: Buffer): number {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  return bytes.length;
}
