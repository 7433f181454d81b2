// Hugging Face safetensors: 8 bytes of little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets: [begin, end]}} (offsets relative to the data that follows),
// then the raw tensors. GPT-2 checkpoints store F32, F16 or BF16; we always hand back Float32.

import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import type { ModelConfig } from './model-config.ts';
import { checkConfigAgainstHeader, headerTensor, readHeaderFrom, type SafetensorsHeader, type TensorInfo } from './safetensors-header.ts';
import { assembleWeights, lookupWeight, weightShapes, type Weights } from './weights.ts';

export type SafetensorsDtype = 'F32' | 'F16' | 'BF16';

/** The dtypes kb converts to float32. */
const BYTES: Record<SafetensorsDtype, number> = { F32: 4, F16: 2, BF16: 2 };

interface HeaderEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

/** Our tensor name (weights.ts) -> the Hugging Face GPT-2 name, without the `transformer.` prefix. */
export function hfTensorName(name: string): string {
  const fixed: Record<string, string> = { wte: 'wte.weight', wpe: 'wpe.weight', lnfGamma: 'ln_f.weight', lnfBeta: 'ln_f.bias' };
  if (fixed[name]) return fixed[name];
  const [, layer, field] = name.split('.');
  const perLayer: Record<string, string> = {
    ln1Gamma: 'ln_1.weight',
    ln1Beta: 'ln_1.bias',
    attnW: 'attn.c_attn.weight',
    attnB: 'attn.c_attn.bias',
    attnProjW: 'attn.c_proj.weight',
    attnProjB: 'attn.c_proj.bias',
    ln2Gamma: 'ln_2.weight',
    ln2Beta: 'ln_2.bias',
    fcW: 'mlp.c_fc.weight',
    fcB: 'mlp.c_fc.bias',
    fcProjW: 'mlp.c_proj.weight',
    fcProjB: 'mlp.c_proj.bias',
  };
  return `h.${layer}.${perLayer[field]}`;
}

/**
 * Reads a GPT-2 `model.safetensors` for the given config; any problem names the file and
 * tensor. The whole header is checked against the config before any tensor is allocated.
 */
export function readSafetensorsWeights(path: string, config: ModelConfig): Weights {
  const fd = openSync(path, 'r');
  try {
    const header = readHeaderFrom(fd, path);
    checkConfigAgainstHeader(config, header);
    const expected = weightShapes(config).map(({ name, shape }) => ({ name, tensor: expectedTensor(header, hfTensorName(name), shape) }));
    const byName = new Map(expected.map((entry) => [entry.name, entry.tensor]));
    return assembleWeights(config, (name) => readTensor(fd, path, hfTensorName(name), byName.get(name)!, header.dataStart));
  } finally {
    closeSync(fd);
  }
}

/** The header's entry for one tensor, present, loadable and of the shape the config gives. */
function expectedTensor(header: SafetensorsHeader, hfName: string, expectedShape: number[]): TensorInfo {
  const { path } = header;
  const entry = headerTensor(header, hfName);
  if (!entry) throw new Error(`${path}: tensor "${hfName}" is missing`);
  if (!(entry.dtype in BYTES)) throw new Error(`${path}: tensor "${hfName}" has dtype ${entry.dtype}; supported: F32, F16, BF16`);
  const shape = entry.shape;
  if (shape.length !== expectedShape.length || shape.some((d, i) => d !== expectedShape[i])) {
    throw new Error(`${path}: tensor "${hfName}" has shape [${shape.join(', ')}], expected [${expectedShape.join(', ')}]`);
  }
  return entry;
}

function readTensor(fd: number, path: string, name: string, entry: TensorInfo, dataStart: number): Float32Array {
  const dtype = entry.dtype as SafetensorsDtype;
  const count = entry.shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(count);
  try {
    if (dtype === 'F32') {
      readExactly(fd, new Uint8Array(out.buffer), dataStart + entry.begin);
      return out;
    }
    const halves = new Uint16Array(count);
    readExactly(fd, new Uint8Array(halves.buffer), dataStart + entry.begin);
    if (dtype === 'BF16') {
      const bits = new Uint32Array(out.buffer);
      for (let i = 0; i < count; i++) bits[i] = halves[i] << 16;
    } else {
      const table = halfTable();
      for (let i = 0; i < count; i++) out[i] = table[halves[i]];
    }
    return out;
  } catch (error) {
    throw new Error(`${path}: tensor "${name}": ${(error as Error).message}`);
  }
}

function readExactly(fd: number, target: Uint8Array, position: number): void {
  // readSync moves at most 2 GiB per call.
  let done = 0;
  while (done < target.length) {
    const n = readSync(fd, target, done, Math.min(target.length - done, 1 << 30), position + done);
    if (n === 0) throw new Error('unexpected end of file');
    done += n;
  }
}

let halfToFloat: Float32Array | undefined;

/** All 65536 IEEE half values as float32, built once. */
function halfTable(): Float32Array {
  if (halfToFloat) return halfToFloat;
  halfToFloat = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exponent = (h >> 10) & 0x1f;
    const mantissa = h & 0x3ff;
    let value: number;
    if (exponent === 0) value = mantissa * 2 ** -24;
    else if (exponent === 31) value = mantissa ? NaN : Infinity;
    else value = (1 + mantissa / 1024) * 2 ** (exponent - 15);
    halfToFloat[h] = sign * value;
  }
  return halfToFloat;
}

export interface TensorToWrite {
  name: string;
  shape: number[];
  data: Float32Array;
  dtype: SafetensorsDtype;
}

/** Writes a safetensors file (tests, and turning synthetic weights into a checkpoint). */
export function writeSafetensors(path: string, tensors: TensorToWrite[]): void {
  const header: Record<string, HeaderEntry> = {};
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const t of tensors) {
    const bytes = encodeTensor(t.data, t.dtype);
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes.length] };
    chunks.push(bytes);
    offset += bytes.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + json.length) % 8)) % 8); // data starts 8-byte aligned
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  writeFileSync(path, Buffer.concat([prefix, Buffer.from(json), ...chunks]));
}

/** Writes weights under the Hugging Face GPT-2 names. */
export function writeSafetensorsWeights(path: string, config: ModelConfig, weights: Weights, dtype: SafetensorsDtype = 'F32'): void {
  writeSafetensors(
    path,
    weightShapes(config).map(({ name, shape }) => ({ name: hfTensorName(name), shape, data: lookupWeight(weights, name), dtype })),
  );
}

function encodeTensor(data: Float32Array, dtype: SafetensorsDtype): Uint8Array {
  if (dtype === 'F32') return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  const out = new Uint16Array(data.length);
  const bits = new Uint32Array(Float32Array.from(data).buffer);
  for (let i = 0; i < data.length; i++) out[i] = dtype === 'BF16' ? floatBitsToBf16(bits[i]) : floatBitsToHalf(bits[i]);
  return new Uint8Array(out.buffer);
}

/** Round to nearest even on the 16 dropped bits. */
function floatBitsToBf16(bits: number): number {
  if ((bits & 0x7f800000) === 0x7f800000 && bits & 0x7fffff) return (bits >>> 16) | 0x40; // keep NaN a NaN
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

function floatBitsToHalf(bits: number): number {
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  let mantissa = bits & 0x7fffff;
  if (((bits >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  if (exponent >= 31) return sign | 0x7c00;
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - exponent;
    const half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    return sign | (half + (rest > halfway || (rest === halfway && half & 1) ? 1 : 0));
  }
  const half = (exponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && half & 1) ? 1 : 0));
}
