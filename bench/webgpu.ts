// The WebGPU backend next to the CPU backend, in one run: prefill and decode tokens/s at batch
// 1, 8 and 32 for gpt2-tiny and gpt2, each as achieved GFLOP/s against the limits measured in
// the same run, and the fixed cost of a step (dispatches + readback). Run by hand:
//
//   . scripts/node-env.sh
//   node --import tsx bench/webgpu.ts [--models gpt2-tiny,gpt2] [--batches 1,8,32]
//        [--backends cpu,webgpu] [--prompt N] [--decode-steps N] [--repeats N] [--json]
//
// On a machine without a GPU "webgpu" is Mesa's lavapipe on the same cores as the CPU backend
// (LP_NUM_THREADS sets its threads). Limits: for webgpu, the backend's own best matmul kernel
// on a large GEMM (its ceiling on this adapter); for cpu, the WASM/JS figures of
// bench/engine-kernels.ts apply. Prefill at batch B: one step of B prompts of --prompt tokens
// (default 128 for gpt2-tiny, 32 for gpt2); decode: steps of one token for each of the B
// sequences after that prefill. Each figure is a median. Figures from a shared machine are
// noisy; compare ratios from one run.

import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createBackend, type BackendKind } from '../src/engine/backend/create-backend.ts';
import type { Backend, StepResult } from '../src/engine/backend/types.ts';
import { BufferUsage, MapMode, openGpu } from '../src/engine/backend/webgpu/device.ts';
import { tokenTableChunks } from '../src/engine/backend/webgpu/gpu-weights.ts';
import { compileKernel, MATMUL_ROW_BLOCKS } from '../src/engine/backend/webgpu/pipelines.ts';
import { MATMUL_WORKGROUP, matmulWgsl } from '../src/engine/backend/webgpu/shaders/matmul.wgsl.ts';
import { namedConfig } from '../src/engine/model/config.ts';
import { syntheticWeights } from '../src/engine/model/weights.ts';
import { batchOf, lmHeadFlops, median, prefillFlops, promptSeqs, tokenFlops, type Seq } from './step-batches.ts';

const { values: args } = parseArgs({
  options: {
    models: { type: 'string', default: 'gpt2-tiny,gpt2' },
    batches: { type: 'string', default: '1,8,32' },
    backends: { type: 'string', default: 'cpu,webgpu' },
    prompt: { type: 'string' },
    'decode-steps': { type: 'string', default: '5' },
    repeats: { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
  },
});

const BLOCK_SIZE = 16;
const batches = args.batches.split(',').map(Number);
const decodeSteps = Number(args['decode-steps']);
const repeats = Number(args.repeats);
const log = (line: string): void => {
  if (!args.json) console.log(line);
};

interface Row {
  model: string;
  backend: string;
  phase: 'prefill' | 'decode';
  batch: number;
  msPerStep: number;
  tokensPerSecond: number;
  gflops: number;
}

async function benchModel(name: string, kind: BackendKind): Promise<Row[]> {
  const config = namedConfig(name);
  const prompt = args.prompt ? Number(args.prompt) : name === 'gpt2-tiny' ? 128 : 32;
  const maxBatch = Math.max(...batches);
  const blocksPerSeq = Math.ceil((prompt + decodeSteps + 8) / BLOCK_SIZE);
  const kv = { numBlocks: maxBatch * blocksPerSeq, blockSize: BLOCK_SIZE };
  const t0 = performance.now();
  const { backend, description } = await createBackend(kind, { config, weights: syntheticWeights(config, 0), kv, maxBatchTokens: maxBatch * prompt });
  log(`\n${name} on ${description}: ready in ${((performance.now() - t0) / 1000).toFixed(1)} s, prompt ${prompt} tokens`);
  const rows: Row[] = [];
  const row = (phase: Row['phase'], batch: number, tokens: number, ms: number, flops: number): void => {
    const r = { model: name, backend: kind, phase, batch, msPerStep: ms, tokensPerSecond: (tokens / ms) * 1000, gflops: flops / ms / 1e6 };
    rows.push(r);
    log(`  ${kind.padEnd(6)} ${phase.padEnd(7)} batch ${String(batch).padStart(2)}: ${r.tokensPerSecond.toFixed(1).padStart(8)} tok/s ${ms.toFixed(1).padStart(9)} ms/step ${r.gflops.toFixed(2).padStart(7)} GFLOP/s`);
  };
  // Warm-up at decode and prefill shapes (V8 for cpu; nothing left to compile for webgpu).
  const warm: Seq[] = [0, 1].map((i) => ({ tokens: [1, 2, 3, 4, 5], blocks: [i * blocksPerSeq] }));
  await backend.step(batchOf(warm, 5, BLOCK_SIZE));
  for (const s of warm) s.tokens.push(7);
  await backend.step(batchOf(warm, 1, BLOCK_SIZE));

  const headFlops = lmHeadFlops(config);
  for (const b of batches) {
    const seqs = promptSeqs(b, prompt, blocksPerSeq, config.vocabSize);
    const prefillTimes: number[] = [];
    let result: StepResult = { tokens: new Int32Array(b) };
    for (let r = 0; r < repeats; r++) {
      const batch = batchOf(seqs, prompt, BLOCK_SIZE);
      const start = performance.now();
      result = await backend.step(batch);
      prefillTimes.push(performance.now() - start);
    }
    row('prefill', b, b * prompt, median(prefillTimes), prefillFlops(config, b, prompt));

    const decodeTimes: number[] = [];
    let flops = 0;
    for (let step = 0; step < decodeSteps; step++) {
      seqs.forEach((s, i) => s.tokens.push(result.tokens[i]));
      flops += b * (tokenFlops(config, seqs[0].tokens.length - 1) + headFlops);
      const batch = batchOf(seqs, 1, BLOCK_SIZE);
      const start = performance.now();
      result = await backend.step(batch);
      decodeTimes.push(performance.now() - start);
    }
    row('decode', b, b, median(decodeTimes), flops / decodeSteps);
  }
  await backend.close();
  return rows;
}

/** The adapter's fixed costs and the matmul kernel's ceiling, measured with bare dispatches. */
async function measureAdapter(): Promise<{ description: string; maxBinding: number; submitReadbackUs: number; perDispatchUs: number; matmulGflops: number }> {
  const ctx = await openGpu('any');
  const { device } = ctx;
  const stepBuffer = device.createBuffer({ size: 16, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
  const out = device.createBuffer({ size: 16, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: 16, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
  const layout = device.createBindGroupLayout({ entries: [{ binding: 0, visibility: 4, buffer: { type: 'uniform' } }, { binding: 1, visibility: 4, buffer: { type: 'storage' } }] });
  const empty = await compileKernel(device, 'empty', '@group(0) @binding(0) var<uniform> u: vec4u; @group(0) @binding(1) var<storage, read_write> o: array<u32>; @compute @workgroup_size(1) fn main() { o[0] = u.x; }', layout);
  const group = device.createBindGroup({ layout, entries: [{ binding: 0, resource: { buffer: stepBuffer } }, { binding: 1, resource: { buffer: out } }] });
  const run = async (dispatches: number): Promise<number> => {
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const start = performance.now();
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(empty);
      pass.setBindGroup(0, group);
      for (let d = 0; d < dispatches; d++) pass.dispatchWorkgroups(1);
      pass.end();
      encoder.copyBufferToBuffer(out, 0, read, 0, 16);
      device.queue.submit([encoder.finish()]);
      await read.mapAsync(MapMode.READ);
      read.unmap();
      times.push(performance.now() - start);
    }
    return median(times) * 1000;
  };
  const oneUs = await run(1);
  const manyUs = await run(201);

  // Ceiling: the prefill-shaped matmul kernel (8 rows per lane) on 256 x 768 x 3072.
  const m = 256, k = 768, n = 3072, tm = MATMUL_ROW_BLOCKS[MATMUL_ROW_BLOCKS.length - 1];
  const mmLayout = device.createBindGroupLayout({ entries: (['uniform', 'read-only-storage', 'read-only-storage', 'storage', 'read-only-storage'] as const).map((type, binding) => ({ binding, visibility: 4, buffer: { type } })) });
  const mm = await compileKernel(device, 'matmul ceiling', matmulWgsl({ k, n, ldy: n, yOffset: 0, rows: 'tokens', epilogue: 'bias' }, tm), mmLayout);
  const buffer = (bytes: number): GPUBuffer => device.createBuffer({ size: bytes, usage: BufferUsage.STORAGE });
  device.queue.writeBuffer(stepBuffer, 0, new Uint32Array([m, 0, 0, 0]));
  const mmGroup = device.createBindGroup({ layout: mmLayout, entries: [stepBuffer, buffer(m * k * 4), buffer(k * n * 4), buffer(m * n * 4), buffer(n * 4)].map((b, binding) => ({ binding, resource: { buffer: b } })) });
  const times: number[] = [];
  for (let i = 0; i < 4; i++) {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(mm);
    pass.setBindGroup(0, mmGroup);
    pass.dispatchWorkgroups(Math.ceil(n / 4 / MATMUL_WORKGROUP), Math.ceil(m / tm));
    pass.end();
    const start = performance.now();
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    times.push(performance.now() - start);
  }
  const matmulGflops = (2 * m * k * n) / (median(times.slice(1)) * 1e6);
  await device.queue.onSubmittedWorkDone();
  return { description: ctx.description, maxBinding: device.limits.maxStorageBufferBindingSize, submitReadbackUs: oneUs, perDispatchUs: (manyUs - oneUs) / 200, matmulGflops };
}

log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; LP_NUM_THREADS=${process.env.LP_NUM_THREADS ?? '(unset: one per core)'}`);
const kinds = args.backends.split(',') as BackendKind[];
const adapter = kinds.includes('webgpu') ? await measureAdapter() : undefined;
if (adapter) {
  log(`webgpu adapter: ${adapter.description}`);
  log(`  submit + readback of one dispatch: ${adapter.submitReadbackUs.toFixed(0)} µs; each further dispatch in the pass: ${adapter.perDispatchUs.toFixed(1)} µs`);
  log(`  matmul kernel ceiling (256x768x3072, 8 rows per lane): ${adapter.matmulGflops.toFixed(1)} GFLOP/s`);
}
const rows: Row[] = [];
for (const name of args.models.split(',')) {
  for (const kind of kinds) rows.push(...(await benchModel(name, kind)));
  if (adapter) {
    const config = namedConfig(name);
    const dispatches = 8 * config.nLayer + 2 * tokenTableChunks(config, adapter.maxBinding).length + 2;
    log(`  webgpu fixed cost per step (${name}): ~${dispatches} dispatches -> ~${((adapter.submitReadbackUs + dispatches * adapter.perDispatchUs) / 1000).toFixed(2)} ms before any math`);
  }
}
if (adapter) {
  const best = Math.max(...rows.filter((r) => r.backend === 'webgpu').map((r) => r.gflops));
  log(`\nbest webgpu step: ${best.toFixed(2)} GFLOP/s = ${((100 * best) / adapter.matmulGflops).toFixed(0)}% of its matmul ceiling`);
}
if (args.json) console.log(JSON.stringify({ adapter, rows }, null, 2));
