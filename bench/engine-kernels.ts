// Kernel benchmark of the CPU backend: prefill and decode tokens/s at batch 1, 8 and 32 for
// gpt2-tiny and gpt2, each also as achieved GFLOP/s and GB/s next to the memory read bandwidth
// measured in the same run. Run by hand (not part of the test suite):
//
//   . scripts/node-env.sh
//   node --import tsx bench/engine-kernels.ts [--models gpt2-tiny,gpt2] [--batches 1,8,32]
//        [--threads N] [--prompt N] [--decode-steps N] [--repeats N] [--kernels wasm,js] [--json]
//
// Prefill at batch B: one step holding B prompts of --prompt tokens (default 128 for
// gpt2-tiny, 32 for gpt2). Decode at batch B: steps of one token for each of the B sequences,
// after that prefill. Bandwidth: memcmp over large buffers on as many threads as the backend
// uses, at once (what the memory gives), and a plain-JS Float32Array sum (what JS code can pull
// through one thread). Each figure is the median step time (prefill repeated --repeats times,
// decode over --decode-steps steps), which shrugs off most of a busy machine's hiccups. On a
// machine shared with other work, "cpu-normalized" divides the process's CPU time by the
// threads instead of using the wall clock: roughly the rate with the cores to itself (spinning
// at barriers counts as CPU time, so it errs low). --kernels js,wasm runs the plain-TypeScript
// kernels and the WebAssembly SIMD ones side by side.
// --gemm (on by default with wasm kernels; --no-gemm to skip) also times the matmul kernel alone
// on one thread at each batch, over every weight matrix of the model in turn (so the weights come
// from memory as in a forward pass), next to the peak of f32x4.relaxed_madd measured in the same
// run (a loop of independent multiply-adds, no loads) on one thread and on all of them at once:
// how close the batched GEMM gets to what WebAssembly SIMD can do on this CPU.
// Figures from a shared machine are noisy; compare ratios from one run.

import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createCpuBackend, kvBytesPerToken } from '../src/engine/backend/cpu/cpu-backend.ts';
import { wasmKernels, wasmKernelsSupported } from '../src/engine/backend/cpu/wasm/load-kernels.ts';
import { wasm } from '../src/engine/backend/cpu/wasm/webassembly.ts';
import type { KernelKind } from '../src/engine/backend/cpu/thread-state.ts';
import type { Backend, StepResult } from '../src/engine/backend/backend.ts';
import { namedConfig, parameterCount } from '../src/engine/model/model-config.ts';
import { syntheticWeights } from '../src/engine/model/weights.ts';
import { batchOf, lmHeadFlops, median, prefillFlops, promptSeqs, tokenFlops, type Seq } from './step-batches.ts';

const { values: args } = parseArgs({
  allowNegative: true,
  options: {
    models: { type: 'string', default: 'gpt2-tiny,gpt2' },
    batches: { type: 'string', default: '1,8,32' },
    threads: { type: 'string' },
    prompt: { type: 'string' },
    'decode-steps': { type: 'string', default: '8' },
    repeats: { type: 'string', default: '3' },
    kernels: { type: 'string', default: 'wasm' },
    gemm: { type: 'boolean', default: true },
    json: { type: 'boolean', default: false },
  },
});

const BLOCK_SIZE = 16;
const threads = args.threads ? Number(args.threads) : availableParallelism();
const batches = args.batches.split(',').map(Number);
const decodeSteps = Number(args['decode-steps']);
const repeats = Number(args.repeats);
const log = (line: string): void => {
  if (!args.json) console.log(line);
};

// Each thread compares its own quarter-GiB pair of buffers with memcmp; the threads run at
// once, so their rates add up to what the memory gives `threads` cores.
const BANDWIDTH_WORKER = `
  const { workerData, parentPort } = require('node:worker_threads');
  const a = Buffer.from(workerData.a);
  const b = Buffer.from(workerData.b);
  Atomics.wait(new Int32Array(workerData.go), 0, 0);
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    if (Buffer.compare(a, b) !== 0) throw new Error('buffers differ');
    best = Math.min(best, performance.now() - t0);
  }
  parentPort.postMessage((a.length + b.length) / best / 1e6);
`;

async function measureBandwidth(): Promise<{ nativeGBs: number; jsSumGBs: number }> {
  const bytes = 256 * 1024 * 1024;
  const go = new SharedArrayBuffer(4);
  const rates = Array.from({ length: threads }, () => {
    const a = new SharedArrayBuffer(bytes);
    const b = new SharedArrayBuffer(bytes);
    new Uint8Array(a).fill(1);
    new Uint8Array(b).fill(1);
    const worker = new Worker(BANDWIDTH_WORKER, { eval: true, workerData: { a, b, go } });
    return new Promise<number>((resolve, reject) => worker.once('message', resolve).once('error', reject));
  });
  await new Promise((resolve) => setTimeout(resolve, 200)); // let every worker reach its wait
  Atomics.store(new Int32Array(go), 0, 1);
  Atomics.notify(new Int32Array(go), 0);
  const nativeGBs = (await Promise.all(rates)).reduce((x, y) => x + y, 0);

  const floats = new Float32Array(bytes / 4).fill(1);
  let bestSum = Infinity;
  let sink = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (let j = 0; j < floats.length; j += 4) {
      s0 += floats[j];
      s1 += floats[j + 1];
      s2 += floats[j + 2];
      s3 += floats[j + 3];
    }
    sink += s0 + s1 + s2 + s3;
    bestSum = Math.min(bestSum, performance.now() - t0);
  }
  if (sink === -1) console.log(sink);
  return { nativeGBs, jsSumGBs: bytes / bestSum / 1e6 };
}

/** CPU milliseconds of all threads since `since`, divided by the threads doing the work. */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000 / threads;
}

interface Row {
  model: string;
  kernels: KernelKind;
  phase: 'prefill' | 'decode';
  batch: number;
  tokensPerStep: number;
  msPerStep: number;
  /** Process CPU time per step / threads: what the step would take with the cores to itself. */
  cpuMsPerStep: number;
  cpuNormalizedTokensPerSecond: number;
  tokensPerSecond: number;
  gflops: number;
  gbps: number;
  bandwidthFraction: number;
}

async function benchModel(name: string, kernels: KernelKind, bandwidth: number): Promise<Row[]> {
  const config = namedConfig(name);
  const prompt = args.prompt ? Number(args.prompt) : name === 'gpt2-tiny' ? 128 : 32;
  const maxBatch = Math.max(...batches);
  const blocksPerSeq = Math.ceil((prompt + decodeSteps + 8) / BLOCK_SIZE);
  const warmSeqs = 5;
  const kv = { numBlocks: Math.max(maxBatch, warmSeqs) * blocksPerSeq, blockSize: BLOCK_SIZE };
  const t0 = performance.now();
  const weights = syntheticWeights(config, 0);
  const backend: Backend = await createCpuBackend({ config, weights, kv, threads, kernels, maxBatchTokens: maxBatch * prompt });
  log(`\n${name}: ${(parameterCount(config) / 1e6).toFixed(1)}M params, ready in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${backend.device}, prompt ${prompt} tokens`);
  const weightBytes = parameterCount(config) * 4;
  const rows: Row[] = [];
  const row = (phase: Row['phase'], batch: number, tokensPerStep: number, ms: number, cpuMs: number, flops: number, bytes: number): void => {
    const r: Row = {
      model: name,
      kernels,
      phase,
      batch,
      tokensPerStep,
      msPerStep: ms,
      cpuMsPerStep: cpuMs,
      cpuNormalizedTokensPerSecond: (tokensPerStep / cpuMs) * 1000,
      tokensPerSecond: (tokensPerStep / ms) * 1000,
      gflops: flops / ms / 1e6,
      gbps: bytes / ms / 1e6,
      bandwidthFraction: bytes / ms / 1e6 / bandwidth,
    };
    rows.push(r);
    log(
      `  ${phase.padEnd(7)} batch ${String(batch).padStart(2)}: ${r.tokensPerSecond.toFixed(1).padStart(8)} tok/s  ` +
        `${ms.toFixed(1).padStart(8)} ms/step  ${r.gflops.toFixed(2).padStart(6)} GFLOP/s  ${r.gbps.toFixed(2).padStart(6)} GB/s (${(100 * r.bandwidthFraction).toFixed(0)}% of bandwidth)` +
        `  | cpu-normalized ${r.cpuNormalizedTokensPerSecond.toFixed(1)} tok/s`,
    );
  };

  // Warm-up: let V8 compile the kernels at every shape class (4x4 and tail blocks).
  const warm: Seq[] = Array.from({ length: warmSeqs }, (_, i) => ({ tokens: [1, 2, 3, 4, 5], blocks: [i * blocksPerSeq] }));
  await backend.step(batchOf(warm, [5, 5, 5, 5, 5], BLOCK_SIZE));
  for (let i = 0; i < 3; i++) {
    for (const s of warm) s.tokens.push(7);
    await backend.step(batchOf(warm, [1, 1, 1, 1, 1], BLOCK_SIZE));
  }

  const headFlops = lmHeadFlops(config);
  for (const b of batches) {
    const seqs = promptSeqs(b, prompt, blocksPerSeq, config.vocabSize);
    const prefillTimes: number[] = [];
    const prefillCpu: number[] = [];
    let result: StepResult = { tokens: new Int32Array(b) };
    for (let r = 0; r < repeats; r++) {
      // Re-running the same prefill rewrites the same KV slots with the same values.
      const start = performance.now();
      const cpu = process.cpuUsage();
      result = await backend.step(batchOf(seqs, seqs.map(() => prompt), BLOCK_SIZE));
      prefillTimes.push(performance.now() - start);
      prefillCpu.push(cpuMs(cpu));
    }
    row('prefill', b, b * prompt, median(prefillTimes), median(prefillCpu), prefillFlops(config, b, prompt), weightBytes + b * prompt * kvBytesPerToken(config));

    const decodeTimes: number[] = [];
    const decodeCpu: number[] = [];
    let flops = 0;
    let kvRead = 0;
    for (let step = 0; step < decodeSteps; step++) {
      seqs.forEach((s, i) => s.tokens.push(result.tokens[i]));
      const ctx = seqs[0].tokens.length;
      flops += b * (tokenFlops(config, ctx - 1) + headFlops);
      kvRead += b * ctx * kvBytesPerToken(config);
      const batch = batchOf(seqs, seqs.map(() => 1), BLOCK_SIZE);
      const start = performance.now();
      const cpu = process.cpuUsage();
      result = await backend.step(batch);
      decodeTimes.push(performance.now() - start);
      decodeCpu.push(cpuMs(cpu));
    }
    row('decode', b, b, median(decodeTimes), median(decodeCpu), flops / decodeSteps, weightBytes + kvRead / decodeSteps);
  }
  await backend.close();
  return rows;
}

// The most f32x4.relaxed_madd can do here: ten independent multiply-add chains, no memory.
const PEAK_WAT = `(module
  (func (export "peak") (param $n i32) (result f32)
    (local $a v128) (local $b v128) (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128) (local $c4 v128)
    (local $c5 v128) (local $c6 v128) (local $c7 v128) (local $c8 v128) (local $c9 v128)
    (local.set $a (f32x4.splat (f32.const 0.999)))
    (local.set $b (f32x4.splat (f32.const 0.001)))
    (loop $l
      ${Array.from({ length: 10 }, (_, i) => `(local.set $c${i} (f32x4.relaxed_madd (local.get $a) (local.get $c${i}) (local.get $b)))`).join('\n      ')}
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (f32x4.extract_lane 0 (f32x4.add (f32x4.add (f32x4.add (local.get $c0) (local.get $c1)) (f32x4.add (local.get $c2) (local.get $c3)))
      (f32x4.add (f32x4.add (f32x4.add (local.get $c4) (local.get $c5)) (f32x4.add (local.get $c6) (local.get $c7)))
        (f32x4.add (local.get $c8) (local.get $c9)))))))`;
// The best of several short runs: on a shared machine the slowest ones are the preempted ones.
const PEAK_ITERATIONS = 4_000_000;
const PEAK_RUNS = 7;
const PEAK_WORKER = `
  const { workerData, parentPort } = require('node:worker_threads');
  const { peak } = new WebAssembly.Instance(new WebAssembly.Module(workerData.bytes)).exports;
  peak(1000000);
  Atomics.wait(new Int32Array(workerData.go), 0, 0);
  let best = Infinity;
  for (let run = 0; run < workerData.runs; run++) {
    const t0 = performance.now();
    peak(workerData.iterations);
    best = Math.min(best, performance.now() - t0);
  }
  parentPort.postMessage((workerData.iterations * 10 * 8) / best / 1e6);
`;

/** GFLOP/s of relaxed_madd with no loads: per thread alone, and summed over `threads` at once. */
async function measureSimdPeak(): Promise<{ oneThread: number; allThreads: number }> {
  const { default: initWabt } = await import('wabt');
  const module = (await initWabt()).parseWat('peak.wat', PEAK_WAT, { simd: true, relaxed_simd: true });
  const bytes = module.toBinary({}).buffer;
  module.destroy();
  const run = async (count: number): Promise<number> => {
    const go = new SharedArrayBuffer(4);
    const rates = Array.from({ length: count }, () => {
      const worker = new Worker(PEAK_WORKER, { eval: true, workerData: { bytes, go, iterations: PEAK_ITERATIONS, runs: PEAK_RUNS } });
      return new Promise<number>((resolve, reject) => worker.once('message', resolve).once('error', reject));
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    Atomics.store(new Int32Array(go), 0, 1);
    Atomics.notify(new Int32Array(go), 0);
    return (await Promise.all(rates)).reduce((x, y) => x + y, 0);
  };
  return { oneThread: await run(1), allThreads: await run(threads) };
}

interface GemmRow {
  model: string;
  batch: number;
  gflops: number;
}

/**
 * The wasm matmul alone on this thread: every matrix of the model (the four of each layer, then
 * the LM head) at `batch` rows, the best of a few passes. The matrices sit one after another in
 * one memory, as in the backend, so a pass streams them from memory as a forward pass does.
 */
async function gemmAlone(name: string): Promise<GemmRow[]> {
  const config = namedConfig(name);
  const c = config.nEmbd;
  const shapes: Array<[number, number]> = [];
  for (let l = 0; l < config.nLayer; l++) shapes.push([c, 3 * c], [c, c], [c, 4 * c], [4 * c, c]);
  shapes.push([c, config.vocabSize]);
  const maxBatch = Math.max(...batches);
  const weightFloats = shapes.reduce((sum, [k, n]) => sum + k * n, 0);
  const floats = weightFloats + maxBatch * 4 * c + config.vocabSize + maxBatch * config.vocabSize;
  const pages = Math.ceil((floats * 4) / 65536) + 1;
  const memory = new wasm.Memory({ initial: pages, maximum: pages, shared: true });
  let next = 0;
  const carve = (length: number): Float32Array => {
    const view = new Float32Array(memory.buffer, next * 4, length);
    next += length;
    return view;
  };
  const weights = shapes.map(([k, n]) => carve(k * n));
  const x = carve(maxBatch * 4 * c);
  const bias = carve(config.vocabSize);
  const y = carve(maxBatch * config.vocabSize);
  const all = new Float32Array(memory.buffer, 0, next);
  for (let i = 0; i < all.length; i++) all[i] = ((i * 2654435761) % 1000) / 5000 - 0.1;
  const { matmul } = wasmKernels(memory);
  const rows: GemmRow[] = [];
  for (const batch of batches) {
    let flops = 0;
    for (const [k, n] of shapes) flops += 2 * batch * k * n;
    let best = Infinity;
    for (let pass = 0; pass < 6; pass++) {
      const start = performance.now();
      shapes.forEach(([k, n], i) => matmul(x, weights[i], bias, y, batch, k, n, 0, n, false));
      if (pass > 0) best = Math.min(best, performance.now() - start); // pass 0 warms the JIT
    }
    rows.push({ model: name, batch, gflops: flops / best / 1e6 });
  }
  return rows;
}

const bandwidth = await measureBandwidth();
log(`memory read bandwidth: ${bandwidth.nativeGBs.toFixed(1)} GB/s (native memcmp on ${threads} thread(s) at once); a plain-JS Float32Array sum on 1 thread: ${bandwidth.jsSumGBs.toFixed(1)} GB/s`);
log(`threads: ${threads}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} cores (a busy machine makes every figure noisy)`);
const all: Row[] = [];
const kernelKinds = args.kernels.split(',') as KernelKind[];
for (const name of args.models.split(',')) {
  for (const kernels of kernelKinds) all.push(...(await benchModel(name, kernels, bandwidth.nativeGBs)));
}
const gemm: GemmRow[] = [];
let peak: { oneThread: number; allThreads: number } | undefined;
if (args.gemm && kernelKinds.includes('wasm') && (await wasmKernelsSupported())) {
  peak = await measureSimdPeak();
  log(`\nf32x4.relaxed_madd peak (no loads): ${peak.oneThread.toFixed(1)} GFLOP/s on one thread, ${peak.allThreads.toFixed(1)} on ${threads} at once`);
  for (const name of args.models.split(',')) {
    const rows = await gemmAlone(name);
    gemm.push(...rows);
    log(`${name} GEMM alone, 1 thread, every matrix in turn: ` +
      rows.map((r) => `batch ${r.batch} ${r.gflops.toFixed(1)} GFLOP/s (${((100 * r.gflops) / peak!.oneThread).toFixed(0)}% of peak)`).join(', '));
  }
}
if (args.json) console.log(JSON.stringify({ bandwidth, threads, rows: all, peak, gemm }, null, 2));
log('');
for (const name of args.models.split(',')) {
  for (const kernels of kernelKinds) {
    const decode = all.filter((r) => r.model === name && r.kernels === kernels && r.phase === 'decode');
    const one = decode.find((r) => r.batch === 1);
    const most = decode.at(-1);
    if (one && most && most !== one) log(`${name} (${kernels}): decode at batch ${most.batch} / batch 1 = ${(most.tokensPerSecond / one.tokensPerSecond).toFixed(2)}x`);
  }
}
