// The header of a safetensors file, read and checked on its own (nothing but the header is
// read): 8 bytes of little-endian length, then JSON {name: {dtype, shape, data_offsets}} and
// an optional "__metadata__" of strings. Every tensor must lie inside the data that follows,
// with a size that matches its dtype and shape, and no two may overlap; the config must match
// the tensors before a single weight or KV block is allocated from it. Each error names the
// file, so a user knows which of their files to look at.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { ModelConfig } from './model-config.ts';

/** Bytes per element of each dtype the safetensors format defines (kb loads F32, F16 and BF16). */
const DTYPE_BYTES: Readonly<Record<string, number>> = {
  BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1, I16: 2, U16: 2, F16: 2, BF16: 2, I32: 4, U32: 4, F32: 4, F64: 8, I64: 8, U64: 8,
};
const MAX_HEADER_BYTES = 100 * 1024 * 1024;
/** Names that would read or write an object's prototype rather than a tensor. */
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

export interface TensorInfo {
  dtype: string;
  shape: number[];
  /** Byte offsets relative to the start of the data, [begin, end). */
  begin: number;
  end: number;
}

export interface SafetensorsHeader {
  path: string;
  tensors: Map<string, TensorInfo>;
  /** File offset of the data (8 + header length). */
  dataStart: number;
  fileSize: number;
}

export function dtypeBytes(dtype: string): number | undefined {
  return Object.hasOwn(DTYPE_BYTES, dtype) ? DTYPE_BYTES[dtype] : undefined;
}

/** Reads and checks the header of the safetensors file at `path`. */
export function readSafetensorsHeader(path: string): SafetensorsHeader {
  const fd = openSync(path, 'r');
  try {
    return readHeaderFrom(fd, path);
  } finally {
    closeSync(fd);
  }
}

export function readHeaderFrom(fd: number, path: string): SafetensorsHeader {
  const fileSize = fstatSync(fd).size;
  if (fileSize < 8) throw new Error(`${path}: truncated safetensors file (${fileSize} bytes, no header)`);
  const lengthBytes = Buffer.alloc(8);
  readSync(fd, lengthBytes, 0, 8, 0);
  const headerLength = Number(lengthBytes.readBigUInt64LE(0));
  if (headerLength > MAX_HEADER_BYTES || 8 + headerLength > fileSize) {
    throw new Error(`${path}: truncated or not a safetensors file (header claims ${headerLength} bytes, file has ${fileSize})`);
  }
  const headerBytes = Buffer.alloc(headerLength);
  readSync(fd, headerBytes, 0, headerLength, 8);
  let json: unknown;
  try {
    json = JSON.parse(headerBytes.toString('utf8'));
  } catch (error) {
    // JSON.parse quotes the text it stopped in, newlines and all: one line, as every error is.
    throw new Error(`${path}: safetensors header is not valid JSON (${(error as Error).message.replace(/\s+/g, ' ')})`);
  }
  const dataStart = 8 + headerLength;
  return { path, tensors: parseEntries(json, path, fileSize - dataStart), dataStart, fileSize };
}

function parseEntries(json: unknown, path: string, dataSize: number): Map<string, TensorInfo> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error(`${path}: safetensors header is not a JSON object`);
  const tensors = new Map<string, TensorInfo>();
  for (const [name, entry] of Object.entries(json)) {
    if (FORBIDDEN_NAMES.has(name)) throw new Error(`${path}: tensor name "${name}" is not allowed`);
    if (name === '__metadata__') {
      checkMetadata(entry, path);
      continue;
    }
    tensors.set(name, parseEntry(name, entry, path, dataSize));
  }
  checkNoOverlap(tensors, path);
  return tensors;
}

function checkMetadata(entry: unknown, path: string): void {
  const ok = typeof entry === 'object' && entry !== null && !Array.isArray(entry) && Object.values(entry).every((v) => typeof v === 'string');
  if (!ok) throw new Error(`${path}: "__metadata__" must be an object of strings`);
}

function parseEntry(name: string, entry: unknown, path: string, dataSize: number): TensorInfo {
  const where = `${path}: tensor "${name}"`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`${where}: expected {dtype, shape, data_offsets}, got ${JSON.stringify(entry)}`);
  const { dtype, shape, data_offsets: offsets } = entry as Record<string, unknown>;
  if (typeof dtype !== 'string' || dtypeBytes(dtype) === undefined) {
    throw new Error(`${where}: unknown dtype ${JSON.stringify(dtype)}; safetensors dtypes: ${Object.keys(DTYPE_BYTES).join(', ')}`);
  }
  const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (!Array.isArray(shape) || !shape.every(isCount)) throw new Error(`${where}: shape must be a list of whole numbers >= 0, got ${JSON.stringify(shape)}`);
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isCount)) {
    throw new Error(`${where}: data_offsets must be [begin, end], whole numbers >= 0, got ${JSON.stringify(offsets)}`);
  }
  const [begin, end] = offsets as [number, number];
  if (end < begin) throw new Error(`${where}: data_offsets [${begin}, ${end}] end before they begin`);
  if (end > dataSize) throw new Error(`${path}: truncated: tensor "${name}" needs data bytes up to ${end}, the file has ${dataSize}`);
  const elements = (shape as number[]).reduce((a, b) => a * b, 1);
  const expected = elements * dtypeBytes(dtype)!;
  if (end - begin !== expected) throw new Error(`${where}: spans ${end - begin} bytes, expected ${expected} for ${dtype} [${shape.join(', ')}]`);
  return { dtype, shape: shape as number[], begin, end };
}

/** Sorted by offset, each tensor must start at or after the end of the one before. */
function checkNoOverlap(tensors: Map<string, TensorInfo>, path: string): void {
  const sorted = [...tensors].filter(([, t]) => t.end > t.begin).sort(([, a], [, b]) => a.begin - b.begin || a.end - b.end);
  for (let i = 1; i < sorted.length; i++) {
    const [previousName, previous] = sorted[i - 1];
    const [name, tensor] = sorted[i];
    if (tensor.begin < previous.end) {
      throw new Error(`${path}: tensors "${previousName}" [${previous.begin}, ${previous.end}) and "${name}" [${tensor.begin}, ${tensor.end}) overlap`);
    }
  }
}

/** The header's tensor for one of our Hugging Face names, with or without the `transformer.` prefix. */
export function headerTensor(header: SafetensorsHeader, hfName: string): TensorInfo | undefined {
  return header.tensors.get(hfName) ?? header.tensors.get(`transformer.${hfName}`);
}

/**
 * The shapes the header holds against the config: layer count, vocabulary, context and width.
 * Run before the config sizes anything (weights, the KV pool), so config.json's
 * n_layer 1000000 beside a 12-layer file fails at once instead of after gigabytes.
 */
export function checkConfigAgainstHeader(config: ModelConfig, header: SafetensorsHeader, configName = 'the config'): void {
  const layers = new Set<number>();
  for (const name of header.tensors.keys()) {
    const match = /^(?:transformer\.)?h\.(\d+)\./.exec(name);
    if (match) layers.add(Number(match[1]));
  }
  const fileLayers = layers.size === 0 ? 0 : Math.max(...layers) + 1;
  if (fileLayers !== config.nLayer) {
    const holds = fileLayers === 0 ? 'holds no layers (no h.N tensors)' : `holds ${fileLayers} layer${fileLayers === 1 ? '' : 's'} (h.0 to h.${fileLayers - 1})`;
    throw new Error(`${header.path}: ${holds}; ${configName} says n_layer ${config.nLayer}`);
  }
  const check = (hfName: string, expected: number[], keys: string) => {
    const tensor = headerTensor(header, hfName);
    if (!tensor) throw new Error(`${header.path}: tensor "${hfName}" is missing`);
    if (tensor.shape.length !== expected.length || tensor.shape.some((d, i) => d !== expected[i])) {
      throw new Error(`${header.path}: tensor "${hfName}" has shape [${tensor.shape.join(', ')}], expected [${expected.join(', ')}] from ${configName}'s ${keys}`);
    }
  };
  check('wte.weight', [config.vocabSize, config.nEmbd], 'vocab_size and n_embd');
  check('wpe.weight', [config.nCtx, config.nEmbd], 'n_positions and n_embd');
}
