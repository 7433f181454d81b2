// Crafted bad weight folders: every problem is refused with the file's path, before anything
// is allocated from the config (a config.json with n_layer 1000000 once allocated gigabytes).
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { resolveModelConfig } from '../../src/engine/index.ts';
import { loadHfModelDir } from '../../src/engine/model/load-model.ts';
import { readSafetensorsHeader } from '../../src/engine/model/safetensors-header.ts';
import { readSafetensorsWeights, writeSafetensorsWeights } from '../../src/engine/model/safetensors.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';

const config: ModelConfig = { name: 't', vocabSize: 50, nCtx: 16, nEmbd: 8, nLayer: 2, nHead: 2, layerNormEps: 1e-5 };
const hfConfig = { model_type: 'gpt2', vocab_size: 50, n_positions: 16, n_embd: 8, n_layer: 2, n_head: 2 };
const root = mkdtempSync(join(tmpdir(), 'kb-bad-weights-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let count = 0;

/** A safetensors file with this header (JSON) followed by `dataBytes` zero bytes. */
function craft(header: unknown, dataBytes = 64): string {
  const path = join(root, `crafted-${count++}.safetensors`);
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  writeFileSync(path, Buffer.concat([length, json, Buffer.alloc(dataBytes)]));
  return path;
}

/** A weights folder: config.json (an object or raw text) and a real 2-layer model.safetensors. */
function folder(configJson: unknown): string {
  const dir = join(root, `model-${count++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'config.json'), typeof configJson === 'string' ? configJson : JSON.stringify(configJson));
  writeSafetensorsWeights(join(dir, 'model.safetensors'), config, syntheticWeights(config, 1), 'F32');
  return dir;
}

const f32 = (begin: number, end: number, shape = [(end - begin) / 4]) => ({ dtype: 'F32', shape, data_offsets: [begin, end] });

describe('a safetensors header is checked whole, each error naming the file', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['a negative offset', { a: { dtype: 'F32', shape: [2], data_offsets: [-8, 0] } }, /tensor "a": data_offsets must be \[begin, end\], whole numbers >= 0, got \[-8,0\]/],
    ['offsets ending before they begin', { a: { dtype: 'F32', shape: [0], data_offsets: [8, 4] } }, /tensor "a": data_offsets \[8, 4\] end before they begin/],
    ['overlapping tensors', { a: f32(0, 16), b: f32(8, 24) }, /tensors "a" \[0, 16\) and "b" \[8, 24\) overlap/],
    ['overlapping, listed out of order', { b: f32(32, 48), a: f32(0, 40) }, /tensors "a" \[0, 40\) and "b" \[32, 48\) overlap/],
    ['an offset past the data', { a: f32(0, 128) }, /truncated: tensor "a" needs data bytes up to 128, the file has 64/],
    ['a null entry', { a: null }, /tensor "a": expected \{dtype, shape, data_offsets\}, got null/],
    ['a shape that is not a list', { a: { dtype: 'F32', shape: 5, data_offsets: [0, 20] } }, /tensor "a": shape must be a list of whole numbers >= 0, got 5/],
    ['a negative dimension', { a: { dtype: 'F32', shape: [-1, 4], data_offsets: [0, 16] } }, /shape must be a list of whole numbers >= 0, got \[-1,4\]/],
    ['data_offsets that are a number', { a: { dtype: 'F32', shape: [1], data_offsets: 5 } }, /data_offsets must be \[begin, end\], whole numbers >= 0, got 5/],
    ['an unknown dtype', { a: { dtype: 'F128', shape: [1], data_offsets: [0, 16] } }, /tensor "a": unknown dtype "F128"; safetensors dtypes: BOOL/],
    ['a size that does not match dtype and shape', { a: { dtype: 'F16', shape: [4], data_offsets: [0, 16] } }, /tensor "a": spans 16 bytes, expected 8 for F16 \[4\]/],
    ['a __proto__ tensor', JSON.parse('{"__proto__": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}'), /tensor name "__proto__" is not allowed/],
    ['a constructor tensor', { constructor: f32(0, 4) }, /tensor name "constructor" is not allowed/],
    ['metadata that is not strings', { __metadata__: { format: 1 } }, /"__metadata__" must be an object of strings/],
    ['a header that is a list', [1, 2], /safetensors header is not a JSON object/],
  ];
  for (const [what, header, message] of cases) {
    it(`refuses ${what}`, () => {
      const path = craft(header);
      expect(() => readSafetensorsHeader(path)).toThrow(message);
      expect(() => readSafetensorsHeader(path)).toThrow(new RegExp(`^${path.replaceAll('.', '\\.')}: `));
    });
  }

  it('accepts string metadata, tensors in any order, and empty tensors', () => {
    const header = readSafetensorsHeader(craft({ __metadata__: { format: 'pt' }, b: f32(16, 32), a: f32(0, 16), empty: f32(16, 16, [0, 4]) }));
    expect([...header.tensors.keys()]).toEqual(['b', 'a', 'empty']);
    expect(header.tensors.get('a')).toEqual({ dtype: 'F32', shape: [4], begin: 0, end: 16 });
  });

  it('any JSON as a tensor entry is either a tensor or an error that starts with the path', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (entry) => {
        const path = craft({ t: entry });
        try {
          readSafetensorsHeader(path);
        } catch (error) {
          expect((error as Error).message.startsWith(`${path}: `)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});

/** A real 2-layer model.safetensors whose header `mutate` changes (the data stays as written). */
function realWithHeader(mutate: (header: Record<string, { dtype: string; shape: number[]; data_offsets: number[] } | null>) => void): string {
  const path = join(root, `real-${count++}.safetensors`);
  writeSafetensorsWeights(path, config, syntheticWeights(config, 1), 'F32');
  const bytes = readFileSync(path);
  const length = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + length).toString('utf8'));
  mutate(header);
  const json = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(json.length));
  writeFileSync(path, Buffer.concat([prefix, json, bytes.subarray(8 + length)]));
  return path;
}

describe('the weight loader refuses what the header check finds', () => {
  it('overlapping, negative and malformed entries of a real file, naming the file', () => {
    const cases: Array<[(h: Parameters<Parameters<typeof realWithHeader>[0]>[0]) => void, RegExp]> = [
      [(h) => void (h['h.0.ln_1.bias']!.data_offsets = h['h.0.ln_1.weight']!.data_offsets), /"h\.0\.ln_1\.(weight|bias)" \[\d+, \d+\) and "h\.0\.ln_1\.(weight|bias)" \[\d+, \d+\) overlap/],
      [(h) => void (h['h.0.ln_1.bias']!.data_offsets = [-32, 0]), /tensor "h\.0\.ln_1\.bias": data_offsets must be \[begin, end\], whole numbers >= 0/],
      [(h) => void (h['h.0.ln_1.weight'] = null), /tensor "h\.0\.ln_1\.weight": expected \{dtype, shape, data_offsets\}, got null/],
      [(h) => void ((h['h.0.ln_1.weight'] as unknown as { shape: unknown }).shape = 8), /tensor "h\.0\.ln_1\.weight": shape must be a list/],
      [(h) => void ((h['h.0.ln_1.weight'] as unknown as { data_offsets: unknown }).data_offsets = 5), /tensor "h\.0\.ln_1\.weight": data_offsets must be \[begin, end\]/],
    ];
    for (const [mutate, message] of cases) {
      const path = realWithHeader(mutate);
      expect(() => readSafetensorsWeights(path, config)).toThrow(message);
      expect(() => readSafetensorsWeights(path, config)).toThrow(new RegExp(`^${path.replaceAll('.', '\\.')}: `));
    }
  });
});

describe('config.json is checked, and checked against the header, before anything is allocated', () => {
  it('refuses n_layer 1000000 at once, naming config.json', () => {
    const dir = folder({ ...hfConfig, n_layer: 1_000_000 });
    expect(() => resolveModelConfig('gpt2-tiny', dir)).toThrow(`${join(dir, 'config.json')}: n_layer must be a whole number from 1 to 1024, got 1000000`);
  });

  it('refuses a config whose layer count or shapes do not match the tensors, naming both files', () => {
    let dir = folder({ ...hfConfig, n_layer: 1000 });
    expect(() => resolveModelConfig('gpt2-tiny', dir)).toThrow(
      `${join(dir, 'model.safetensors')}: holds 2 layers (h.0 to h.1); ${join(dir, 'config.json')} says n_layer 1000`,
    );
    expect(() => loadHfModelDir(dir)).toThrow(/holds 2 layers/);
    dir = folder({ ...hfConfig, vocab_size: 60 });
    expect(() => resolveModelConfig('gpt2-tiny', dir)).toThrow(
      `${join(dir, 'model.safetensors')}: tensor "wte.weight" has shape [50, 8], expected [60, 8] from ${join(dir, 'config.json')}'s vocab_size and n_embd`,
    );
    dir = folder({ ...hfConfig, n_positions: 32 });
    expect(() => resolveModelConfig('gpt2-tiny', dir)).toThrow(/tensor "wpe\.weight" has shape \[16, 8\], expected \[32, 8\]/);
  });

  it('says a file with one layer or none in good English', () => {
    const one = { ...config, nLayer: 1 };
    const path = join(root, 'one-layer.safetensors');
    writeSafetensorsWeights(path, one, syntheticWeights(one, 1), 'F32');
    expect(() => readSafetensorsWeights(path, config)).toThrow(/holds 1 layer \(h\.0 to h\.0\); the config says n_layer 2/);
    const none = craft({ 'wte.weight': f32(0, 16, [2, 2]) });
    expect(() => readSafetensorsWeights(none, config)).toThrow(/holds no layers \(no h\.N tensors\); the config says n_layer 2/);
  });

  it('refuses bad values with the key as config.json spells it', () => {
    const cases: Array<[unknown, string]> = [
      [{ ...hfConfig, n_head: 3 }, 'n_embd 8 is not a multiple of n_head 3'],
      [{ ...hfConfig, n_embd: 8.5 }, 'n_embd must be a whole number from 1 to 65536, got 8.5'],
      [{ ...hfConfig, n_layer: '2' }, 'n_layer must be a whole number from 1 to 1024, got "2"'],
      [{ ...hfConfig, vocab_size: -1 }, 'vocab_size must be a whole number from 1 to 1048576, got -1'],
      [{ ...hfConfig, layer_norm_epsilon: 'small' }, 'layer_norm_epsilon must be a number in (0, 1), got "small"'],
      ['null', 'expected a JSON object'],
      ['{"__proto__": {"n_layer": 2}, "vocab_size": 50}', 'missing numeric field "n_positions"'],
    ];
    for (const [json, message] of cases) {
      const dir = folder(json);
      expect(() => resolveModelConfig('gpt2-tiny', dir)).toThrow(`${join(dir, 'config.json')}: ${message}`);
    }
  });

  it('quotes a JSON parser error on one line: it quotes the text it stopped in, newline and all', () => {
    const dir = folder('not json\n');
    expect(() => resolveModelConfig('gpt2-tiny', dir)).toThrow(/^[^\n]*config\.json: not valid JSON \(Unexpected token[^\n]*\)$/);
    const header = Buffer.from('{"a":\n x}');
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(header.length));
    const path = join(root, `newline-${count++}.safetensors`);
    writeFileSync(path, Buffer.concat([length, header]));
    expect(() => readSafetensorsHeader(path)).toThrow(/^[^\n]*: safetensors header is not valid JSON \([^\n]*\)$/);
  });

  it('says a file or a missing path is no folder (both read "<path>/config.json: not found")', () => {
    const file = join(root, `plain-${count++}.txt`);
    writeFileSync(file, 'x');
    expect(() => resolveModelConfig('gpt2-tiny', file)).toThrow(`${file}: is a file, not a folder (a weights folder holds config.json and model.safetensors)`);
    const missing = join(root, 'no-such-folder');
    expect(() => resolveModelConfig('gpt2-tiny', missing)).toThrow(`${missing}: no such folder (a weights folder holds config.json and model.safetensors)`);
    // A folder without its files still names the file it lacks.
    const empty = join(root, `empty-${count++}`);
    mkdirSync(empty);
    expect(() => resolveModelConfig('gpt2-tiny', empty)).toThrow(`${join(empty, 'config.json')}: not found`);
  });

  it('still loads a good folder', () => {
    const dir = folder(hfConfig);
    expect(resolveModelConfig('gpt2-tiny', dir)).toMatchObject({ nLayer: 2, nEmbd: 8, vocabSize: 50 });
    expect(loadHfModelDir(dir).weights.layers).toHaveLength(2);
  });
});
