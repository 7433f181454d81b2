// The WebGPU backend next to the CPU backend, in one run: prefill and decode tokens/s at batch
// 1, 8 and 32 for gpt2-tiny and gpt2, each as achieved GFLOP/s against the limits measured in
// the same run, and the fixed cost of a step (dispatches + readback). Run by hand:
//
//   . scripts/node-env.sh
//   node --import tsx bench/webgpu.ts [--models gpt2-tiny,gpt2] [--batches 1,8,32]
//        [--backends cpu,webgpu] [--prompt N] [--decode-steps N] [--repeats N]
//        [--matmul-rows 1,8,32] [--no-matmul] [--kernels software|hardware] [--json]
//
// On a machine without a GPU "webgpu" is Mesa's lavapipe on the same cores as the CPU backend
// (LP_NUM_THREADS sets its threads). First the matmul kernels alone: each variant (texture
// weights + subgroup broadcasts, and the register-blocked buffer kernel) on GPT-2's shapes at
// --matmul-rows rows; the best of them on a GEMM as large as the largest prefill step (256 rows on
// a software adapter) is the adapter's ceiling. For cpu, the
// WASM/JS figures of bench/engine-kernels.ts apply. Prefill at batch B: one step of B prompts of
// --prompt tokens (default 128 for gpt2-tiny, 32 for gpt2); decode: steps of one token for each
// of the B sequences after that prefill. Each figure is a median. Every figure comes twice: per
// wall second, and per CPU-second of this process (both backends compute on threads of this
// process), which holds still when other work shares the cores; compare ratios from one run.

import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { BackendKind } from '../src/engine/backend/backend-kind.ts';
import { createBackend } from '../src/engine/backend/create-backend.ts';
import type { Backend, StepResult } from '../src/engine/backend/backend.ts';
import { BufferUsage, MapMode, openGpu } from '../src/engine/backend/webgpu/device.ts';
import { texturesFit, tokenTableChunkLimit, tokenTableChunks } from '../src/engine/backend/webgpu/gpu-weights.ts';
import { compileKernel, matmulKernels, variantsFor, type KernelVariants, type VariantChoice } from '../src/engine/backend/webgpu/pipelines.ts';
import { dispatchesPerStep, matmulDispatch } from '../src/engine/backend/webgpu/webgpu-forward.ts';
import { namedConfig } from '../src/engine/model/model-config.ts';
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
    'matmul-rows': { type: 'string', default: '1,8,32' },
    'no-matmul': { type: 'boolean', default: false },
    kernels: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

if (args.kernels !== undefined && args.kernels !== 'software' && args.kernels !== 'hardware') throw new Error(`--kernels: software or hardware, not ${args.kernels}`);
/** Whether to run the GPU kernel variants: as --kernels says, else on a hardware adapter. */
const hardwareKernels = (softwareAdapter: boolean): boolean => (args.kernels === undefined ? !softwareAdapter : args.kernels === 'hardware');

const BLOCK_SIZE = 16;
const WARM_SEQS = 2;
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
  /** CPU time of this process per step, and GFLOP per CPU-second. */
  cpuMsPerStep: number;
  gflopsPerCpuSecond: number;
}

/** Runs `work`, returning its wall and CPU milliseconds (CPU: every thread of this process). */
async function timed(work: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> {
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  await work();
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** Tokens of each prompt in a prefill step of model `name`. */
const promptTokens = (name: string): number => (args.prompt ? Number(args.prompt) : name === 'gpt2-tiny' ? 128 : 32);

async function benchModel(name: string, kind: BackendKind): Promise<Row[]> {
  const config = namedConfig(name);
  const prompt = promptTokens(name);
  const maxBatch = Math.max(...batches);
  const blocksPerSeq = Math.ceil((prompt + decodeSteps + 8) / BLOCK_SIZE);
  // Room for the two warm-up sequences too, when the largest batch is 1.
  const kv = { numBlocks: Math.max(maxBatch, WARM_SEQS) * blocksPerSeq, blockSize: BLOCK_SIZE };
  const t0 = performance.now();
  const { backend, description } = await createBackend(kind, { config, weights: syntheticWeights(config, 0), kv, maxBatchTokens: maxBatch * prompt, kernelVariants: args.kernels as VariantChoice | undefined });
  log(`\n${name} on ${description}: ready in ${((performance.now() - t0) / 1000).toFixed(1)} s, prompt ${prompt} tokens`);
  const rows: Row[] = [];
  const row = (phase: Row['phase'], batch: number, tokens: number, times: { ms: number; cpuMs: number }[], flops: number): void => {
    const ms = median(times.map((t) => t.ms));
    const cpuMs = median(times.map((t) => t.cpuMs));
    const r = { model: name, backend: kind, phase, batch, msPerStep: ms, tokensPerSecond: (tokens / ms) * 1000, gflops: flops / ms / 1e6, cpuMsPerStep: cpuMs, gflopsPerCpuSecond: flops / cpuMs / 1e6 };
    rows.push(r);
    log(
      `  ${kind.padEnd(6)} ${phase.padEnd(7)} batch ${String(batch).padStart(2)}: ${r.tokensPerSecond.toFixed(1).padStart(8)} tok/s ${ms.toFixed(1).padStart(9)} ms/step ${r.gflops.toFixed(2).padStart(7)} GFLOP/s` +
        ` | ${((tokens / cpuMs) * 1000).toFixed(1).padStart(8)} tok/cpu-s ${r.gflopsPerCpuSecond.toFixed(2).padStart(6)} GFLOP/cpu-s`,
    );
  };
  // Warm-up at decode and prefill shapes (V8 for cpu; nothing left to compile for webgpu).
  const warm: Seq[] = Array.from({ length: WARM_SEQS }, (_, i) => ({ tokens: [1, 2, 3, 4, 5], blocks: [i * blocksPerSeq] }));
  await backend.step(batchOf(warm, 5, BLOCK_SIZE));
  for (const s of warm) s.tokens.push(7);
  await backend.step(batchOf(warm, 1, BLOCK_SIZE));

  const headFlops = lmHeadFlops(config);
  for (const b of batches) {
    const seqs = promptSeqs(b, prompt, blocksPerSeq, config.vocabSize);
    const prefillTimes: { ms: number; cpuMs: number }[] = [];
    let result: StepResult = { tokens: new Int32Array(b) };
    for (let r = 0; r < repeats; r++) {
      const batch = batchOf(seqs, prompt, BLOCK_SIZE);
      prefillTimes.push(await timed(async () => (result = await backend.step(batch))));
    }
    row('prefill', b, b * prompt, prefillTimes, prefillFlops(config, b, prompt));

    const decodeTimes: { ms: number; cpuMs: number }[] = [];
    let flops = 0;
    for (let step = 0; step < decodeSteps; step++) {
      seqs.forEach((s, i) => s.tokens.push(result.tokens[i]));
      flops += b * (tokenFlops(config, seqs[0].tokens.length - 1) + headFlops);
      const batch = batchOf(seqs, 1, BLOCK_SIZE);
      decodeTimes.push(await timed(async () => (result = await backend.step(batch))));
    }
    row('decode', b, b, decodeTimes, flops / decodeSteps);
  }
  await backend.close();
  return rows;
}

/** A set of kernel variants under the name the matmul table shows. */
type BenchVariant = KernelVariants & { label: string };

interface MatmulFigure {
  variant: string;
  kernel: string;
  k: number;
  n: number;
  rows: number;
  gflops: number;
  gflopsPerCpuSecond: number;
}

interface AdapterFigures {
  description: string;
  maxBinding: number;
  maxTextureDimension2D: number;
  /** Where the backend keeps weights on this adapter by default. */
  weights: KernelVariants['weights'];
  /** Whether decode's few-row matmuls split K (and fuse the LayerNorm before them). */
  fewRows: KernelVariants['fewRows'];
  submitReadbackUs: number;
  perDispatchUs: number;
  matmuls: MatmulFigure[];
  /** The best matmul figure per CPU-second: a GEMM of 768 x 3072 per variant (rows: see measureAdapter), and the shapes above. */
  ceiling: MatmulFigure;
}

/** The adapter's fixed costs, measured with bare dispatches, and its matmul kernels alone. */
async function measureAdapter(matmulRows: number[], largestPrefillRows: number): Promise<AdapterFigures> {
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

  // The kernels the backend can run here, on GPT-2's shapes (qkv, fc, fc proj, LM head): on a
  // software adapter texture weights + subgroups (where it has subgroups) and the buffer
  // kernels; on a GPU the split-K and the one-lane-per-column kernels for few rows and the tiled
  // GEMM, each at every row count, so the thresholds between them can be read off.
  const gpt2 = namedConfig('gpt2');
  const hardware = variantsFor('hardware', ctx.subgroupSize, false);
  const variants: BenchVariant[] = !hardwareKernels(ctx.software)
    ? [
        { label: 'texture', ...variantsFor('software', ctx.subgroupSize, texturesFit(gpt2, device.limits.maxTextureDimension2D)) },
        { label: 'buffer', ...variantsFor('software-buffers', undefined, false) },
      ].filter((v, i, all) => all.findIndex((o) => o.weights === v.weights) === i)
    : [
        { label: 'split-k', ...hardware, tiledFromRows: Infinity },
        { label: 'columns', ...hardware, fewRows: 'columns', tiledFromRows: Infinity },
        { label: 'tiled', ...hardware, tiledFromRows: 1, tiledFromTiles: 0 },
      ];
  const maxBufferColumns = Math.floor(device.limits.maxStorageBufferBindingSize / (768 * 4) / 4) * 4;
  const headColumns = (v: KernelVariants): number => (v.weights === 'texture' ? Math.floor(tokenTableChunkLimit(device, gpt2, 'texture') / (768 * 4) / 4) * 4 : maxBufferColumns);
  const matmuls: MatmulFigure[] = [];
  for (const v of variants) {
    for (const [k, n] of [[768, 2304], [768, 3072], [3072, 768], [768, Math.min(50260, headColumns(v))]]) {
      for (const rows of matmulRows) matmuls.push(await timeMatmul(device, stepBuffer, v, k, n, rows));
    }
  }
  const ceilings: MatmulFigure[] = [];
  // On a GPU, as many rows as the largest prefill step below: 256 rows do not fill the chip, and
  // a step then beat its "ceiling" (149% on an H200). A software adapter is bound by its cores
  // at 256 rows already, and a larger GEMM would take it seconds a pass.
  const rows = hardwareKernels(ctx.software) ? Math.max(256, largestPrefillRows) : 256;
  for (const v of variants) ceilings.push(await timeMatmul(device, stepBuffer, v, 768, 3072, rows));
  const ceiling = [...ceilings, ...matmuls].reduce((a, b) => (b.gflopsPerCpuSecond > a.gflopsPerCpuSecond ? b : a));
  await device.queue.onSubmittedWorkDone();
  device.destroy();
  const { weights, fewRows } = variants[0];
  return { description: ctx.description, maxBinding: device.limits.maxStorageBufferBindingSize, maxTextureDimension2D: device.limits.maxTextureDimension2D, weights, fewRows, submitReadbackUs: oneUs, perDispatchUs: (manyUs - oneUs) / 200, matmuls, ceiling };
}

/** One matmul kernel alone, as the backend would pick it for `rows` rows; the median of a few passes of repeated dispatches. */
async function timeMatmul(device: GPUDevice, stepBuffer: GPUBuffer, v: BenchVariant, k: number, n: number, rows: number): Promise<MatmulFigure> {
  const shape = { k, n, ldy: n, yOffset: 0, rows: 'tokens' as const, epilogue: 'bias' as const };
  const kernels = await matmulKernels(device, `${k}x${n}`, shape, v);
  const { pipeline, grid } = matmulDispatch(kernels, rows, v);
  const kernel = pipeline === kernels.tiled ? 'tiled' : `x${[...kernels.byRowBlock].find(([, p]) => p === pipeline)![0]}`;
  const buffer = (bytes: number): GPUBuffer => device.createBuffer({ size: bytes, usage: BufferUsage.STORAGE });
  const weights = v.weights === 'texture' ? device.createTexture({ size: [n / 4, k], format: 'rgba32float', usage: 0x8 }) : buffer(k * n * 4);
  const resources: GPUBindingResource[] = [{ buffer: stepBuffer }, { buffer: buffer(rows * k * 4) }, 'createView' in weights ? weights.createView() : { buffer: weights }, { buffer: buffer(rows * n * 4) }, { buffer: buffer(n * 4) }];
  const group = device.createBindGroup({ layout: kernels.layout, entries: resources.map((resource, binding) => ({ binding, resource })) });
  device.queue.writeBuffer(stepBuffer, 0, new Uint32Array([rows, 0, 0, 0]));
  const flops = 2 * rows * k * n;
  const reps = Math.max(1, Math.min(20, Math.round(2e8 / flops)));
  const times: { ms: number; cpuMs: number }[] = [];
  for (let i = 0; i < 4; i++) {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    for (let r = 0; r < reps; r++) pass.dispatchWorkgroups(...grid);
    pass.end();
    const t = await timed(async () => {
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
    });
    if (i > 0) times.push(t); // the first pass compiles the pipeline on lavapipe
  }
  const ms = median(times.map((t) => t.ms)) / reps;
  const cpuMs = median(times.map((t) => t.cpuMs)) / reps;
  return { variant: v.label, kernel, k, n, rows, gflops: flops / ms / 1e6, gflopsPerCpuSecond: flops / cpuMs / 1e6 };
}

log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; LP_NUM_THREADS=${process.env.LP_NUM_THREADS ?? '(unset: one per core)'}`);
const kinds = args.backends.split(',') as BackendKind[];
const largestPrefillRows = Math.max(...args.models.split(',').map((name) => promptTokens(name) * Math.max(...batches)));
const adapter = kinds.includes('webgpu') ? await measureAdapter(args['no-matmul'] ? [] : args['matmul-rows'].split(',').map(Number), largestPrefillRows) : undefined;
if (adapter) {
  log(`webgpu adapter: ${adapter.description}`);
  log(`  submit + readback of one dispatch: ${adapter.submitReadbackUs.toFixed(0)} µs; each further dispatch in the pass: ${adapter.perDispatchUs.toFixed(1)} µs`);
  if (adapter.matmuls.length > 0) log('  matmul kernels alone (GFLOP/s | GFLOP per CPU-second):');
  for (const m of adapter.matmuls) {
    log(`    ${m.variant.padEnd(7)} ${`${m.kernel},`.padEnd(7)} ${`${m.k}x${m.n}`.padEnd(10)} rows ${String(m.rows).padStart(3)}: ${m.gflops.toFixed(2).padStart(6)} | ${m.gflopsPerCpuSecond.toFixed(2).padStart(6)}`);
  }
  const c = adapter.ceiling;
  log(`  matmul ceiling (best per CPU-second: ${c.rows}x${c.k}x${c.n}, ${c.variant} ${c.kernel}): ${c.gflops.toFixed(1)} GFLOP/s, ${c.gflopsPerCpuSecond.toFixed(1)} GFLOP per CPU-second`);
}
const rows: Row[] = [];
for (const name of args.models.split(',')) {
  for (const kind of kinds) rows.push(...(await benchModel(name, kind)));
  if (adapter) {
    const config = namedConfig(name);
    const chunkBytes = adapter.weights === 'texture' ? 4 * adapter.maxTextureDimension2D * config.nEmbd * 4 : adapter.maxBinding;
    const dispatches = dispatchesPerStep(config.nLayer, tokenTableChunks(config, chunkBytes).length, adapter.fewRows === 'split-k');
    log(`  webgpu fixed cost per step (${name}): ~${dispatches} dispatches -> ~${((adapter.submitReadbackUs + dispatches * adapter.perDispatchUs) / 1000).toFixed(2)} ms before any math`);
  }
}
if (adapter) {
  const best = Math.max(...rows.filter((r) => r.backend === 'webgpu').map((r) => r.gflopsPerCpuSecond));
  log(`\nbest webgpu step: ${best.toFixed(2)} GFLOP per CPU-second = ${((100 * best) / adapter.ceiling.gflopsPerCpuSecond).toFixed(0)}% of its matmul ceiling`);
}
if (kinds.includes('cpu') && kinds.includes('webgpu')) {
  log('\nwebgpu / cpu, tokens per second (per CPU-second in brackets):');
  for (const r of rows.filter((r) => r.backend === 'webgpu')) {
    const cpu = rows.find((o) => o.backend === 'cpu' && o.model === r.model && o.phase === r.phase && o.batch === r.batch);
    if (cpu) log(`  ${r.model.padEnd(9)} ${r.phase.padEnd(7)} batch ${String(r.batch).padStart(2)}: ${(r.tokensPerSecond / cpu.tokensPerSecond).toFixed(2)} (${(cpu.cpuMsPerStep / r.cpuMsPerStep).toFixed(2)})`);
  }
}
if (args.json) console.log(JSON.stringify({ adapter, rows }, null, 2));
