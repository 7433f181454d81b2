// How the sim's cost grows with the number of requests: the lab runner's benchmark on the sim
// backend (seed 003's shape: 4 prompt / 64 output tokens, Poisson arrivals at a rate that keeps
// ~256 sequences running), at N requests for each N given. Run by hand:
//
//   . scripts/node-env.sh
//   node bench/sim-scale.ts [--requests 10000,100000,1000000] [--device seed-003-gpu] [--rate 40]
//
// Prints wall and CPU time per N (CPU time, user + system of the whole process, holds steadier
// than wall time when other work shares the cores), µs per request, each N's time relative to
// the smallest N scaled by N (1.0 = linear), the steps simulated, and a fingerprint of the run's
// metrics (every lab metric but the host's own overhead time): a change meant to make the sim
// faster must leave the fingerprint as it was. To compare with an earlier commit, run the same
// script there (bench/README.md says how) and here, alternating.
// Goals: 100,000 in < 5 s and 1,000,000 in < 60 s on 2 cores. `--rate 1000` sends requests
// about 7x faster than seed-003-gpu serves them: the waiting queue then holds most of them, the
// case of a load sweep past capacity, and the cost must stay linear there too.
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { runBenchmarkPoint } from '../src/lab/engine-bridge.ts';
import { applyOverrides, defaultSettings } from '../src/lab/lab-settings.ts';
import { resolveSimDevice } from '../src/lab/devices/resolve-device.ts';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000,100000,1000000' },
    device: { type: 'string', default: 'seed-003-gpu' },
    rate: { type: 'string', default: '40' },
  },
});

const counts = args.requests.split(',').map(Number);
const rate = Number(args.rate);
// A typo is one line, not the workload generator's stack trace.
if (!counts.every((n) => Number.isInteger(n) && n > 0) || !(rate > 0)) {
  console.error(`sim-scale: --requests takes whole numbers above 0, comma-separated, and --rate a number above 0 (got --requests ${args.requests} --rate ${args.rate})`);
  process.exit(2);
}
let base: { n: number; ms: number } | null = null;
console.log(`device ${args.device}; rate ${args.rate}/s; ${new Date().toISOString()}; load ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);
for (const n of counts) {
  const settings = applyOverrides(defaultSettings, [
    { key: 'model', value: 'gpt2' },
    { key: 'backend', value: 'sim' },
    { key: 'device', value: args.device },
    { key: 'warmup', value: 0 },
    { key: 'engine.maxNumSeqs', value: 256 },
    { key: 'engine.prefillMaxBatch', value: 16 },
    { key: 'engine.prefixCaching', value: false },
    { key: 'workload.requests', value: n },
    { key: 'workload.promptTokens', value: { min: 4, max: 4 } },
    { key: 'workload.outputTokens', value: { min: 64, max: 64 } },
    { key: 'workload.arrival', value: 'poisson' },
    { key: 'workload.rate', value: rate },
  ]);
  const simDevice = resolveSimDevice(args.device, 'gpt2').spec;
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const run = await runBenchmarkPoint(settings, { simDevice });
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  base ??= { n, ms };
  const linear = ms / n / (base.ms / base.n);
  console.log(
    `${String(n).padStart(9)} requests  ${(ms / 1000).toFixed(2).padStart(7)} s wall  ${(cpuMs / 1000).toFixed(2).padStart(7)} s CPU  ` +
      `${((ms * 1000) / n).toFixed(1).padStart(6)} µs/request  x${linear.toFixed(2)} of linear  ` +
      `(${run.metrics['scheduler.steps']} steps, TTFT p50 ${run.metrics['ttft.p50']?.toFixed(1)} ms, ${run.metrics['throughput.output_tps']?.toFixed(0)} tok/s simulated; metrics ${fingerprint(run.metrics)})`,
  );
}

/** A short hash of the metrics, all but the host's real-time overhead (the one figure that differs between two runs of one seed). */
function fingerprint(metrics: Record<string, number>): string {
  const { 'scheduler.overhead_ms': _overhead, ...simulated } = metrics;
  const text = JSON.stringify(Object.entries(simulated).sort(([a], [b]) => (a < b ? -1 : 1)));
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}
