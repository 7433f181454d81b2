// The GGUF writer of bench/peer-llamacpp, read back by a small independent GGUF parser, and
// the GPT-2 mapping (names, ggml dims, Conv1D -> Linear transposes, vocabulary).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { GGUF_TYPE, writeGguf, type GgufTensor, type GgufValue } from '../../bench/peer-llamacpp/gguf-writer.ts';
import { gpt2Metadata, gpt2Tensors, transpose } from '../../bench/peer-llamacpp/gpt2-gguf.ts';
import { byteToUnicode, GPT2_EOS_ID, gpt2Vocab, TOKEN_TYPE } from '../../bench/peer-llamacpp/gpt2-vocab.ts';
import { namedConfig, type ModelConfig } from '../../src/engine/model/model-config.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';

const dir = mkdtempSync(join(tmpdir(), 'kb-gguf-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;

interface ParsedTensor {
  name: string;
  dims: number[];
  type: number;
  offset: number;
  data: Float32Array;
}

/** Reads a GGUF v3 file the way gguf.cpp does, independently of the writer. */
function parseGguf(bytes: Buffer): { version: number; kv: Map<string, unknown>; tensors: ParsedTensor[]; dataStart: number } {
  let at = 0;
  const u32 = () => ((at += 4), bytes.readUInt32LE(at - 4));
  const u64 = () => ((at += 8), Number(bytes.readBigUInt64LE(at - 8)));
  const str = () => {
    const n = u64();
    at += n;
    return bytes.toString('utf8', at - n, at);
  };
  const value = (type: number): unknown => {
    switch (type) {
      case GGUF_TYPE.UINT32:
        return u32();
      case GGUF_TYPE.INT32:
        return ((at += 4), bytes.readInt32LE(at - 4));
      case GGUF_TYPE.FLOAT32:
        return ((at += 4), bytes.readFloatLE(at - 4));
      case GGUF_TYPE.BOOL:
        return bytes[at++] !== 0;
      case GGUF_TYPE.STRING:
        return str();
      case GGUF_TYPE.ARRAY: {
        const elemType = u32();
        const n = u64();
        return Array.from({ length: n }, () => value(elemType));
      }
      default:
        throw new Error(`unexpected type ${type}`);
    }
  };
  expect(bytes.toString('latin1', 0, 4)).toBe('GGUF');
  at = 4;
  const version = u32();
  const nTensors = u64();
  const nKv = u64();
  const kv = new Map<string, unknown>();
  for (let i = 0; i < nKv; i++) {
    const key = str();
    kv.set(key, value(u32()));
  }
  const infos: Omit<ParsedTensor, 'data'>[] = [];
  for (let i = 0; i < nTensors; i++) {
    const name = str();
    const nDims = u32();
    const dims = Array.from({ length: nDims }, () => u64());
    infos.push({ name, dims, type: u32(), offset: u64() });
  }
  const alignment = (kv.get('general.alignment') as number | undefined) ?? 32;
  const dataStart = Math.ceil(at / alignment) * alignment;
  const tensors = infos.map((t) => {
    const count = t.dims.reduce((a, b) => a * b, 1);
    const copy = bytes.subarray(dataStart + t.offset, dataStart + t.offset + count * 4);
    return { ...t, data: new Float32Array(copy.buffer.slice(copy.byteOffset, copy.byteOffset + copy.byteLength)) };
  });
  return { version, kv, tensors, dataStart };
}

function writeAndParse(metadata: Map<string, GgufValue>, tensors: GgufTensor[]) {
  const path = join(dir, `t${fileCount++}.gguf`);
  const size = writeGguf(path, metadata, tensors);
  const bytes = readFileSync(path);
  expect(bytes.length).toBe(size);
  return parseGguf(bytes);
}

describe('writeGguf', () => {
  it('writes a v3 header, typed metadata and aligned F32 tensors that read back unchanged', () => {
    const a = Float32Array.from({ length: 7 }, (_, i) => i * 0.5 - 1);
    const b = Float32Array.from({ length: 6 }, (_, i) => -i);
    const metadata = new Map<string, GgufValue>([
      ['general.architecture', { type: 'string', value: 'gpt2' }],
      ['n', { type: 'uint32', value: 4000000000 }],
      ['neg', { type: 'int32', value: -5 }],
      ['eps', { type: 'float32', value: 1e-5 }],
      ['flag', { type: 'bool', value: true }],
      ['words', { type: 'string[]', value: ['Ġt', 'é', ''] }],
      ['kinds', { type: 'int32[]', value: Int32Array.from([1, 3, -1]) }],
    ]);
    const parsed = writeAndParse(metadata, [
      { name: 'a', dims: [7], data: () => a },
      { name: 'b', dims: [3, 2], data: () => b },
    ]);
    expect(parsed.version).toBe(3);
    expect(parsed.kv.get('general.architecture')).toBe('gpt2');
    expect(parsed.kv.get('n')).toBe(4000000000);
    expect(parsed.kv.get('neg')).toBe(-5);
    expect(parsed.kv.get('eps')).toBeCloseTo(1e-5, 10);
    expect(parsed.kv.get('flag')).toBe(true);
    expect(parsed.kv.get('words')).toEqual(['Ġt', 'é', '']);
    expect(parsed.kv.get('kinds')).toEqual([1, 3, -1]);
    expect(parsed.dataStart % 32).toBe(0);
    expect(parsed.tensors.map((t) => [t.name, t.dims, t.type, t.offset])).toEqual([
      ['a', [7], 0, 0],
      ['b', [3, 2], 0, 32], // 28 bytes of `a`, padded to 32
    ]);
    expect(parsed.tensors[0].data).toEqual(a);
    expect(parsed.tensors[1].data).toEqual(b);
  });

  it('puts every tensor on the alignment boundary for any sizes and alignment (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 }), fc.constantFrom(8, 32, 64), (sizes, alignment) => {
        const tensors = sizes.map((n, i) => {
          const data = Float32Array.from({ length: n }, (_, j) => i * 100 + j);
          return { name: `t${i}`, dims: [n], data: () => data };
        });
        const parsed = writeAndParse(new Map([['general.alignment', { type: 'uint32', value: alignment }]]), tensors);
        expect(parsed.dataStart % alignment).toBe(0);
        parsed.tensors.forEach((t, i) => {
          expect(t.offset % alignment).toBe(0);
          expect(t.data).toEqual(tensors[i].data());
        });
      }),
      { numRuns: 25 },
    );
  });

  it('refuses duplicate names, bad dims and data of the wrong size', () => {
    const one = new Float32Array(1);
    const path = join(dir, 'bad.gguf');
    expect(() => writeGguf(path, new Map(), [{ name: 'x', dims: [1], data: () => one }, { name: 'x', dims: [1], data: () => one }])).toThrow(/twice/);
    expect(() => writeGguf(path, new Map(), [{ name: 'x', dims: [0], data: () => one }])).toThrow(/bad dims/);
    expect(() => writeGguf(path, new Map(), [{ name: 'x', dims: [2], data: () => one }])).toThrow(/1 values/);
  });
});

describe('GPT-2 as GGUF', () => {
  // A small model with GPT-2's vocabulary (the tokenizer section needs all 50257 tokens).
  const config: ModelConfig = { ...namedConfig('gpt2-tiny'), name: 'test', nCtx: 32, nEmbd: 8, nLayer: 2, nHead: 2 };
  const weights = syntheticWeights(config, 3);

  it('transposes row-major matrices (property: twice is the identity)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), (rows, cols) => {
        const m = Float32Array.from({ length: rows * cols }, (_, i) => i);
        const t = transpose(m, rows, cols);
        expect(t[(cols - 1) * rows + 0]).toBe(m[cols - 1]);
        expect(transpose(t, cols, rows)).toEqual(m);
      }),
    );
  });

  it("names tensors as llama.cpp's gpt2 architecture does, with Conv1D weights as Linear [out, in]", () => {
    const tensors = new Map(gpt2Tensors(config, weights).map((t) => [t.name, t]));
    const c = config.nEmbd;
    expect(tensors.size).toBe(4 + 12 * config.nLayer);
    expect(tensors.has('output.weight')).toBe(false); // tied to token_embd.weight
    expect(tensors.get('token_embd.weight')!.dims).toEqual([c, config.vocabSize]);
    expect(tensors.get('position_embd.weight')!.dims).toEqual([c, config.nCtx]);
    expect(tensors.get('token_embd.weight')!.data()).toBe(weights.wte);
    const cases = [
      ['blk.1.attn_qkv.weight', weights.layers[1].attnW, c, 3 * c],
      ['blk.1.attn_output.weight', weights.layers[1].attnProjW, c, c],
      ['blk.0.ffn_up.weight', weights.layers[0].fcW, c, 4 * c],
      ['blk.0.ffn_down.weight', weights.layers[0].fcProjW, 4 * c, c],
    ] as const;
    for (const [name, conv1d, inDim, outDim] of cases) {
      const tensor = tensors.get(name)!;
      expect(tensor.dims).toEqual([inDim, outDim]);
      const data = tensor.data();
      // ggml element (i = input, o = output) sits at o * inDim + i; kb's Conv1D has it at i * outDim + o.
      for (const [i, o] of [[0, 0], [inDim - 1, 0], [0, outDim - 1], [1, 2]]) expect(data[o * inDim + i]).toBe(conv1d[i * outDim + o]);
    }
    for (const name of ['attn_norm.weight', 'attn_norm.bias', 'attn_qkv.bias', 'attn_output.bias', 'ffn_norm.weight', 'ffn_norm.bias', 'ffn_up.bias', 'ffn_down.bias']) {
      expect(tensors.has(`blk.0.${name}`)).toBe(true);
    }
    expect(tensors.get('blk.0.ffn_up.bias')!.dims).toEqual([4 * c]);
    expect(tensors.get('output_norm.bias')!.dims).toEqual([c]);
  });

  it("builds GPT-2's vocabulary and merges from the r50k_base ranks", () => {
    const vocab = gpt2Vocab();
    expect(vocab.tokens).toHaveLength(50257);
    expect(vocab.merges).toHaveLength(50000);
    // The head of GPT-2's merges.txt and a few well-known ids of its encoder.json.
    expect(vocab.merges.slice(0, 5)).toEqual(['Ġ t', 'Ġ a', 'h e', 'i n', 'r e']);
    expect(vocab.tokens[0]).toBe('!');
    expect(vocab.tokens[198]).toBe('Ċ');
    expect(vocab.tokens[262]).toBe('Ġthe');
    expect(vocab.tokens[GPT2_EOS_ID]).toBe('<|endoftext|>');
    expect(vocab.tokenTypes[GPT2_EOS_ID]).toBe(TOKEN_TYPE.CONTROL);
    expect(vocab.tokenTypes[262]).toBe(TOKEN_TYPE.NORMAL);
    expect(new Set(byteToUnicode()).size).toBe(256);

    const metadata = gpt2Metadata(config);
    expect(metadata.get('general.architecture')).toEqual({ type: 'string', value: 'gpt2' });
    expect(metadata.get('gpt2.feed_forward_length')).toEqual({ type: 'uint32', value: 4 * config.nEmbd });
    expect(metadata.get('tokenizer.ggml.model')).toEqual({ type: 'string', value: 'gpt2' });
  }, 60_000);
});
