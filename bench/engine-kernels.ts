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
// Figures from a shared machine are noisy; compare ratios from one run.

import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createCpuBackend, kvBytesPerToken } from '../src/engine/backend/cpu/cpu-backend.ts';
import type { KernelKind } from '../src/engine/backend/cpu/thread-state.ts';
import type { Backend, StepResult } from '../src/engine/backend/types.ts';
import { namedConfig, parameterCount } from '../src/engine/model/config.ts';
import { syntheticWeights } from '../src/engine/model/weights.ts';
import { batchOf, lmHeadFlops, median, prefillFlops, promptSeqs, tokenFlops, type Seq } from './step-batches.ts';

const { values: args } = parseArgs({
  options: {
    models: { type: 'string', default: 'gpt2-tiny,gpt2' },
    batches: { type: 'string', default: '1,8,32' },
    threads: { type: 'string' },
    prompt: { type: 'string' },
    'decode-steps': { type: 'string', default: '8' },
    repeats: { type: 'string', default: '3' },
    kernels: { type: 'string', default: 'wasm' },
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

const bandwidth = await measureBandwidth();
log(`memory read bandwidth: ${bandwidth.nativeGBs.toFixed(1)} GB/s (native memcmp on ${threads} thread(s) at once); a plain-JS Float32Array sum on 1 thread: ${bandwidth.jsSumGBs.toFixed(1)} GB/s`);
log(`threads: ${threads}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} cores (a busy machine makes every figure noisy)`);
const all: Row[] = [];
const kernelKinds = args.kernels.split(',') as KernelKind[];
for (const name of args.models.split(',')) {
  for (const kernels of kernelKinds) all.push(...(await benchModel(name, kernels, bandwidth.nativeGBs)));
}
if (args.json) console.log(JSON.stringify({ bandwidth, threads, rows: all }, null, 2));
log('');
for (const name of args.models.split(',')) {
  for (const kernels of kernelKinds) {
    const decode = all.filter((r) => r.model === name && r.kernels === kernels && r.phase === 'decode');
    const one = decode.find((r) => r.batch === 1);
    const most = decode.at(-1);
    if (one && most && most !== one) log(`${name} (${kernels}): decode at batch ${most.batch} / batch 1 = ${(most.tokensPerSecond / one.tokensPerSecond).toFixed(2)}x`);
  }
}
