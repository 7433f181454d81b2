// A third-party engine behind the same protocol, on the same weights: llama.cpp (node-llama-cpp,
// prebuilt CPU binary, installed on demand as for bench/peer-llamacpp) behind a thin
// OpenAI-compatible front (llamacpp-front.ts: one context, N sequences batched by llama.cpp),
// measured by kb's endpoint client on a lab's workload, side by side in one run with the same
// workload on kb's engine. Run by hand:
//
//   . scripts/node-env.sh
//   node --import tsx bench/peer-server/run.ts [--model gpt2-tiny] [--lab ttft-breakdown]
//        [--requests 64] [--sequences 16] [--threads 2] [--rounds 2]
//
// Both sides may run --sequences requests at once (kb: engine.maxNumSeqs and
// engine.prefillMaxBatch set to it; llama.cpp: that many sequences in its context), on
// --threads threads, and the rounds alternate kb / llama.cpp so a busy machine hurts both
// alike. kb runs in-process here: `kb serve` (being built on another branch) will put it
// behind HTTP too; kb's client costs ~0.1 ms a request (bench/endpoint-client), small next to
// these TTFTs. Prints TTFT, TPOT, throughput and kb/llama.cpp ratios (medians over rounds).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { namedConfig } from '../../src/engine/model/model-config.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';
import { percentile } from '../../src/engine/metrics/percentile.ts';
import { runBenchmarkPoint } from '../../src/lab/engine-bridge.ts';
import { runEndpointPoint, type EndpointSession } from '../../src/lab/endpoint/run-point.ts';
import { probeServer } from '../../src/lab/endpoint/server-info.ts';
import { parseEndpoint } from '../../src/lab/endpoint/target.ts';
import { loadLab } from '../../src/lab/lab-files.ts';
import { labSettings } from '../../src/lab/plan.ts';
import { writeGguf } from '../peer-llamacpp/gguf-writer.ts';
import { gpt2Metadata, gpt2Tensors } from '../peer-llamacpp/gpt2-gguf.ts';
import { startLlama } from '../peer-llamacpp/node-llama-cpp.ts';
import { startLlamaCppFront } from './llamacpp-front.ts';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: 'gpt2-tiny' },
    lab: { type: 'string', default: 'ttft-breakdown' },
    requests: { type: 'string', default: '64' },
    sequences: { type: 'string', default: '16' },
    threads: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '2' },
  },
});
const sequences = Number(args.sequences);
const threads = Number(args.threads);
const rounds = Number(args.rounds);
const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const lab = loadLab([repoRoot], args.lab);
if (lab.sweep) throw new Error(`--lab ${args.lab} is a sweep; pick a single-run lab`);
const settings = labSettings(lab, [
  { key: 'model', value: args.model },
  { key: 'backend', value: 'cpu' },
  { key: 'workload.requests', value: Number(args.requests) },
  { key: 'warmup', value: 1 },
  { key: 'repeats', value: 1 },
  { key: 'engine.maxNumSeqs', value: sequences },
  { key: 'engine.prefillMaxBatch', value: sequences },
]);
const config = namedConfig(settings.model);

const started = await startLlama(threads, console.log);
if (!started.ok) {
  console.log(`peer-server benchmark skipped: ${started.reason}`);
  process.exit(0);
}
const { llama } = started;
const dir = mkdtempSync(join(tmpdir(), 'kb-peer-server-'));
const gguf = join(dir, `${config.name}.gguf`);
try {
  writeGguf(gguf, gpt2Metadata(config), gpt2Tensors(config, syntheticWeights(config, settings.workload.seed)));
  const model = await llama.loadModel({ modelPath: gguf, gpuLayers: 0 });
  const w = settings.workload;
  const longest = w.promptTokens.max + w.outputTokens.max + 1;
  const front = await startLlamaCppFront(model, { name: config.name, version: `${llama.llamaCppRelease.release} (node-llama-cpp ${started.version})`, sequences, threads, contextSize: longest, batchSize: Math.max(512, sequences * longest) });
  const target = parseEndpoint(front.url);
  const session: EndpointSession = { target, server: await probeServer(target, config.name), maxConcurrency: null };
  console.log(`lab ${lab.name} on ${config.name}: ${w.requests} requests, prompt ${w.promptTokens.max} / output ${w.outputTokens.max} tokens, ${w.arrival}; ${sequences} at once on each side, ${threads} threads`);
  console.log(`llama.cpp ${llama.llamaCppRelease.release} via node-llama-cpp ${started.version} behind ${front.url}; load average before ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

  const names = ['ttft.p50', 'ttft.p99', 'tpot.p50', 'itl.p50', 'throughput.output_tps', 'throughput.requests_per_s', 'queue_wait.mean', 'prefill_first.mean'];
  const kb: Array<Record<string, number>> = [];
  const peer: Array<Record<string, number>> = [];
  for (let round = 1; round <= rounds; round++) {
    const k = await runBenchmarkPoint(settings);
    if (!k.completed) throw new Error('kb run did not complete');
    kb.push(k.metrics);
    const p = await runEndpointPoint(session, settings);
    if (!p.completed) throw new Error('llama.cpp run did not complete');
    const failed = p.metrics.requests_failed ?? 0;
    if (failed > 0) throw new Error(`llama.cpp front failed ${failed} requests: ${JSON.stringify(p.report?.client.failures)}`);
    peer.push(p.metrics);
    console.log(`round ${round}: kb TTFT p50 ${k.metrics['ttft.p50'].toFixed(1)} ms, ${k.metrics['throughput.output_tps'].toFixed(0)} tok/s; llama.cpp TTFT p50 ${p.metrics['ttft.p50'].toFixed(1)} ms, ${p.metrics['throughput.output_tps'].toFixed(0)} tok/s`);
  }
  const median = (runs: Array<Record<string, number>>, name: string) => percentile(runs.map((r) => r[name]).filter((v) => v !== undefined), 50);
  console.log(`\n${'median of rounds'.padEnd(28)} ${'kb engine'.padStart(12)} ${'llama.cpp'.padStart(12)}   kb / llama.cpp`);
  for (const name of names) {
    const a = median(kb, name);
    const b = median(peer, name);
    console.log(`${name.padEnd(28)} ${a.toFixed(2).padStart(12)} ${b.toFixed(2).padStart(12)}   ${Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : '-'}`);
  }
  console.log(`(llama.cpp's queue/prefill means from its /metrics histograms through kb's endpoint client; kb's from its engine's timelines.)`);
  console.log(`load average after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  await front.close();
  await model.dispose();
} finally {
  await llama.dispose();
  rmSync(dir, { recursive: true, force: true });
}
