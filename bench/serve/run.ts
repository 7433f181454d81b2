// kb serve next to the in-process engine, side by side in one run, on a lab's workload
// (default ttft-breakdown: 256 requests in one burst, 16 admitted to prefill per step).
// Run by hand:
//
//   . scripts/node-env.sh
//   node --import tsx bench/serve/run.ts [--lab ttft-breakdown] [--pairs 3] [--connections 1000]
//        [--connection-tokens 32] [--skip-connections] [--skip-burst] [--singles 20 (0: none)] [--threads N] [--serve-threads N]
//        [--api-servers 1[,4,...]] [--client-threads K] [--backend cpu|webgpu] [--runs N] [--json]
//
// Each pair runs the workload in-process (the engine's own benchmark runner, as `kb lab` does)
// and then over HTTP against the real `kb serve` (a child process started with the lab's
// engine.* settings, stopped after its run, so an idle server never shares the cores with the
// in-process run): warm-up runs as the lab asks, then one measured run. The HTTP side streams
// every request (SSE, token-id prompts, ignore_eos, greedy) through a lean node:http client
// and times TTFT from just before sending, as vLLM's `bench serve` does. Reported per pair:
// output tokens/s and TTFT p50 of each side, their ratio and difference, then the median of
// the pairs. Goals: throughput >= 0.9x in-process, TTFT p50 overhead < 2 ms. Then --singles
// requests of the same workload one at a time, the two sides taking turns request by request
// (after as many to warm up): the TTFT the HTTP path adds to a lone request, with no queue and
// no burst to parse.
//
// --api-servers takes a list: each pair then runs kb serve once with each --api-server-count,
// side by side. --client-threads spreads the benchmark client over K threads (client-pool.ts).
// --backend runs both sides on another backend than the lab's (webgpu on a GPU machine).
// --runs N measures each side N times in a pair (after its warm-up) and takes the median run's
// throughput and TTFT p50: a burst the engine finishes in ~40 ms (gpt2-tiny on a GPU) swings
// from run to run more than the overhead it is to show.
//
// Then --connections streaming requests at once (prompt 8, --connection-tokens each) against one
// kb serve: every one must complete with all its tokens and no error; reports how many were
// open at once, the server's running/waiting gauges mid-run, TTFT p50/p99 and the wall time.
// On this 2-core machine client, server and engine share the cores: note the load (uptime)
// next to the figures.
import type { Agent } from 'node:http';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runBenchmark } from '../../src/engine/bench/runner.ts';
import { generateWorkload, type WorkloadRequest } from '../../src/engine/bench/workload.ts';
import { percentile } from '../../src/engine/metrics/percentile.ts';
import { namedConfig } from '../../src/engine/model/model-config.ts';
import { benchmarkOptions } from '../../src/lab/engine-bridge.ts';
import { serverSide } from '../../src/lab/endpoint/measure.ts';
import { scrapeHistograms } from '../../src/lab/endpoint/server-histograms.ts';
import { loadLab } from '../../src/lab/lab-files.ts';
import { applyOverrides, formatSettingValue, getSetting, parseOverrides, settingSpecs, type LabSettings } from '../../src/lab/lab-settings.ts';
import { clientPool } from './client-pool.ts';
import { startKbServe } from './kb-serve-process.ts';
import { keepAliveAgent, type StreamOutcome, streamCompletion } from './stream-client.ts';
import { type ThreadCpu, threadCpu } from './thread-cpu.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: args } = parseArgs({
  options: {
    lab: { type: 'string', default: 'ttft-breakdown' },
    pairs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '1000' },
    'connection-tokens': { type: 'string', default: '32' },
    'skip-connections': { type: 'boolean', default: false },
    'skip-burst': { type: 'boolean', default: false },
    singles: { type: 'string', default: '20' },
    threads: { type: 'string' },
    'serve-threads': { type: 'string' },
    'api-servers': { type: 'string', default: '1' },
    'client-threads': { type: 'string', default: '1' },
    backend: { type: 'string' },
    runs: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
  },
});
const log = (line: string) => {
  if (!args.json) process.stdout.write(`${line}\n`);
};

interface SideResult {
  outputTokensPerS: number;
  ttftP50Ms: number;
  ttftP99Ms: number;
  /** Exact means, to set beside the server's own (its histogram's sum over its count). */
  ttftMeanMs: number;
  requests: number;
  failed: number;
  /** Serve only: CPU time of the measured run, the server's threads by kind and the benchmark client's (this process). */
  cpu?: ThreadCpu & { clientMs: number };
  /** The engine's steps and their time in the measured run (kb serve's from two scrapes of /metrics). */
  engine: EngineTime;
  /** Serve only: TTFT as kb serve measured it (from the request's arrival), and the client's event-loop delay during the run. */
  split?: { serverTtftMeanMs: number; serverTtftP50Ms: number; clientLoopDelayMeanMs: number; clientLoopDelayMaxMs: number };
}

interface EngineTime {
  steps: number;
  forwardMs: number;
  schedulingMs: number;
}

/** kb serve's engine counters (kb:engine_*) as they stand now. */
async function scrapeEngineTime(url: string): Promise<EngineTime> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text());
  const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    steps: value('kb:engine_steps_total'),
    forwardMs: value('kb:engine_forward_seconds_total') * 1000,
    schedulingMs: value('kb:engine_scheduling_seconds_total') * 1000,
  };
}

const lab = loadLab([repoRoot], args.lab);
const settings: LabSettings = args.backend === undefined ? lab.settings : applyOverrides(lab.settings, parseOverrides([`backend=${args.backend}`]));
const apiServerCounts = args['api-servers'].split(',').map(Number);
const clientThreads = Number(args['client-threads']);
const measuredRuns = Number(args.runs);
// Each side runs the engine on its own default number of cpu threads, as a user gets it: all
// cores in-process, and kb serve's (which leaves cores to its HTTP side); --threads sets both,
// --serve-threads kb serve's alone.
const threads = args.threads === undefined ? undefined : Number(args.threads);
const serveThreads = args['serve-threads'] !== undefined ? Number(args['serve-threads']) : threads;
const labOptions = benchmarkOptions(settings);
const options = { ...labOptions, engine: { ...labOptions.engine, ...(threads === undefined ? {} : { threads }) } };
const requests = generateWorkload(options.workload, namedConfig(settings.model).vocabSize);
if (requests.some((r) => r.stopAfterTokens !== undefined)) {
  throw new Error(`${args.lab}: its outputs end before max_tokens (workload.maxNewTokens), which the OpenAI API cannot ask for; pick a lab without it`);
}
// The lab's engine settings, as kb serve's --set flags.
const serveArgs = [
  '--model', settings.model,
  '--backend', settings.backend,
  ...(serveThreads === undefined ? [] : ['--threads', String(serveThreads)]),
  ...settingSpecs.filter((s) => s.key.startsWith('engine.')).flatMap((s) => ['--set', `${s.key}=${formatSettingValue(getSetting(settings, s.key))}`]),
];

async function inProcess(): Promise<SideResult> {
  const report = await runBenchmark({ ...options, repeatRuns: measuredRuns });
  const m = report.metrics;
  const { steps, forwardMs, overheadMs } = report.scheduler;
  const perRun = report.runs.map((run) => run.metrics);
  return {
    outputTokensPerS: median(perRun.map((r) => r.outputTokensPerS)),
    ttftP50Ms: median(perRun.map((r) => r.ttftMs.p50)),
    ttftP99Ms: m.ttftMs.p99,
    ttftMeanMs: m.ttftMs.mean,
    requests: m.requests,
    failed: m.failed,
    engine: { steps, forwardMs, schedulingMs: overheadMs },
  };
}

async function runOverHttp(url: string, workload: readonly WorkloadRequest[], agent: Agent): Promise<StreamOutcome[]> {
  const start = performance.now();
  const pending = workload.map(async (r) => {
    const wait = start + r.arrivalMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return streamCompletion(url, { prompt: r.promptIds, max_tokens: r.maxNewTokens, ignore_eos: true, temperature: 0 }, agent);
  });
  return Promise.all(pending);
}

function summarizeHttp(outcomes: readonly StreamOutcome[], engine: EngineTime): SideResult {
  const ok = outcomes.filter((o) => o.error === null && o.ttftMs !== null);
  const tokens = ok.reduce((sum, o) => sum + (o.completionTokens ?? 0), 0);
  const duration = Math.max(...ok.map((o) => o.end)) - Math.min(...outcomes.map((o) => o.start));
  const ttfts = ok.map((o) => o.ttftMs!);
  return {
    outputTokensPerS: (tokens * 1000) / duration,
    ttftP50Ms: percentile(ttfts, 50),
    ttftP99Ms: percentile(ttfts, 99),
    ttftMeanMs: ttfts.reduce((a, b) => a + b, 0) / ttfts.length,
    requests: outcomes.length,
    failed: outcomes.length - ok.length,
    engine,
  };
}

async function overServe(apiServers: number): Promise<SideResult & { serveEngine: string }> {
  const server = await startKbServe([...serveArgs, '--api-server-count', String(apiServers)]);
  // One keep-alive pool for the warm-up and the measured run, so the measured run reuses warm
  // connections (as a benchmark client's connection pool does).
  const agent = keepAliveAgent();
  const pool = clientThreads > 1 ? clientPool(clientThreads) : null;
  const send = (url: string) => (pool ? pool.run(url, requests) : runOverHttp(url, requests, agent));
  try {
    for (let i = 0; i < settings.warmup; i++) await send(server.url);
    const engineBefore = await scrapeEngineTime(server.url);
    const histogramsBefore = await scrapeHistograms(server.url, {});
    const serverCpu = threadCpu(server.pid);
    const clientCpu = threadCpu('self');
    // How late the client's own loop ran its callbacks: a first chunk it read late counts
    // against the server's TTFT, though the server had sent it.
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    const measured: StreamOutcome[][] = [];
    for (let k = 0; k < measuredRuns; k++) measured.push(await send(server.url));
    loopDelay.disable();
    const cpu = serverCpu();
    const client = clientCpu();
    const engineAfter = await scrapeEngineTime(server.url);
    const serverTtft = serverSide(histogramsBefore, await scrapeHistograms(server.url, {}));
    const ttftSeries = serverTtft.available ? serverTtft.series.ttft : undefined;
    const split = ttftSeries && {
      serverTtftMeanMs: ttftSeries.meanMs,
      serverTtftP50Ms: ttftSeries.p50.value,
      clientLoopDelayMeanMs: loopDelay.mean / 1e6,
      clientLoopDelayMaxMs: loopDelay.max / 1e6,
    };
    const engine = {
      steps: engineAfter.steps - engineBefore.steps,
      forwardMs: engineAfter.forwardMs - engineBefore.forwardMs,
      schedulingMs: engineAfter.schedulingMs - engineBefore.schedulingMs,
    };
    const perRun = measured.map((outcomes) => summarizeHttp(outcomes, engine));
    const pooled = summarizeHttp(measured.flat(), engine);
    const side: SideResult = {
      ...pooled,
      outputTokensPerS: median(perRun.map((r) => r.outputTokensPerS)),
      ttftP50Ms: median(perRun.map((r) => r.ttftP50Ms)),
      ttftP99Ms: median(perRun.map((r) => r.ttftP99Ms)),
    };
    return { ...side, cpu: { ...cpu, clientMs: client.mainMs + client.engineMs + client.otherMs }, split, serveEngine: server.engine };
  } finally {
    agent.destroy();
    await pool?.close();
    await server.stop();
  }
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);
const median = (values: number[]) => percentile(values, 50);

log(
  `kb serve vs in-process engine: lab ${args.lab} (${settings.model}, ${settings.backend}; engine threads in-process ${threads ?? 'all cores'}, kb serve ${serveThreads ?? "its default"}; ` +
    `${requests.length} requests, ${args.pairs} pairs of ${measuredRuns} measured run${measuredRuns === 1 ? '' : 's'} a side; kb serve --api-server-count ${apiServerCounts.join(', ')}; client threads ${clientThreads}); load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
);
if (!args['skip-burst']) log('pair  api  in-process tok/s  serve tok/s  ratio   in-process TTFT p50  serve TTFT p50  overhead');
const pairs: { inProcess: SideResult; serve: Record<number, SideResult> }[] = [];
for (let i = 0; i < (args['skip-burst'] ? 0 : Number(args.pairs)); i++) {
  const a = await inProcess();
  const pair: (typeof pairs)[number] = { inProcess: a, serve: {} };
  pairs.push(pair);
  // Each count's server in turn, the first count first in odd pairs and last in even ones.
  const order = i % 2 === 0 ? apiServerCounts : [...apiServerCounts].reverse();
  for (const count of order) {
    const b = await overServe(count);
    pair.serve[count] = b;
    if (i === 0) log(`      kb serve's engine (${count} API servers): ${b.serveEngine}`);
    log(
      `${String(i + 1).padStart(4)}  ${String(count).padStart(3)}  ${fmt(a.outputTokensPerS).padStart(16)}  ${fmt(b.outputTokensPerS).padStart(11)}  ${fmt(b.outputTokensPerS / a.outputTokensPerS, 3).padStart(5)}x  ` +
        `${fmt(a.ttftP50Ms, 2).padStart(16)} ms  ${fmt(b.ttftP50Ms, 2).padStart(11)} ms  ${fmt(b.ttftP50Ms - a.ttftP50Ms, 2).padStart(6)} ms` +
        (a.failed + b.failed > 0 ? `  (failed: ${a.failed} in-process, ${b.failed} serve)` : ''),
    );
    // Whether serving changed the engine's work (more steps: requests admitted in smaller waves)
    // or its speed (slower steps: its threads sharing cores with HTTP and the client).
    const perStep = (e: EngineTime) => `${e.steps} steps, forward ${fmt(e.forwardMs / e.steps, 2)} + scheduling ${fmt(e.schedulingMs / e.steps, 2)} ms a step`;
    log(`           engine: in-process ${perStep(a.engine)}; serve ${perStep(b.engine)}`);
    // Where the cores went in the serve run: the engine's threads, and beside them on the same
    // cores kb serve's HTTP thread(s), its other threads (V8's GC helpers) and the client.
    if (b.cpu && b.cpu.engineMs > 0) {
      const c = b.cpu;
      const beside = c.mainMs + c.otherMs + c.clientMs;
      log(`           serve CPU ms: engine ${c.engineMs}; beside it ${beside} (HTTP threads ${c.mainMs}, other server threads ${c.otherMs}, client ${c.clientMs}), ${fmt((100 * beside) / c.engineMs, 0)}% of the engine's`);
    }
    // Where the TTFT overhead arises: inside kb serve (its TTFT runs from the request's arrival
    // to the first chunk written) or between client and server (sending, loopback, reading).
    if (b.split) {
      const s = b.split;
      log(
        `           TTFT mean: in-process ${fmt(a.ttftMeanMs, 2)} ms; kb serve's own ${fmt(s.serverTtftMeanMs, 2)} ms (p50 ~${fmt(s.serverTtftP50Ms, 1)}, from buckets); ` +
          `the client's ${fmt(b.ttftMeanMs, 2)} ms; client loop delay mean ${fmt(s.clientLoopDelayMeanMs, 2)} ms, max ${fmt(s.clientLoopDelayMaxMs, 1)} ms`,
      );
    }
  }
}
const throughputRatio: Record<number, number> = {};
const ttftOverhead: Record<number, number> = {};
for (const count of apiServerCounts) {
  if (pairs.length === 0) break;
  throughputRatio[count] = median(pairs.map((p) => p.serve[count].outputTokensPerS / p.inProcess.outputTokensPerS));
  ttftOverhead[count] = median(pairs.map((p) => p.serve[count].ttftP50Ms - p.inProcess.ttftP50Ms));
  log(`median, ${count} API server${count === 1 ? '' : 's'}: throughput ${fmt(throughputRatio[count], 3)}x in-process (goal >= 0.9x); TTFT p50 overhead ${fmt(ttftOverhead[count], 2)} ms (goal < 2 ms)`);
}

// The same comparison one request at a time: what the HTTP path adds to a lone request's
// TTFT when nothing queues (the burst above also pays for parsing 256 requests on cores the
// engine needs). The two sides take turns request by request, both engines up (the idle one
// sleeps), so a change in the machine's load between them does not pass for overhead.
const singles = Number(args.singles);
const single = requests.slice(0, singles).map((r) => ({ ...r, arrivalMs: 0 }));
const { createEngine } = await import('../../src/engine/index.ts');
const { requestMetrics } = await import('../../src/engine/metrics/timeline.ts');
const sequential: { inProcess: number[]; serve: number[] }[] = [];
for (let i = 0; i < (singles > 0 ? Number(args.pairs) : 0); i++) {
  const engine = await createEngine(options.engine);
  const server = await startKbServe([...serveArgs, '--api-server-count', String(apiServerCounts[0])]);
  const agent = keepAliveAgent();
  const local: number[] = [];
  const remote: number[] = [];
  const runLocal = async (r: WorkloadRequest) => {
    const result = await engine.submit({ promptIds: r.promptIds, maxNewTokens: r.maxNewTokens }).done;
    local.push(requestMetrics(result.timeline)!.ttftMs);
  };
  const runRemote = async (r: WorkloadRequest) => {
    const outcome = await streamCompletion(server.url, { prompt: r.promptIds, max_tokens: r.maxNewTokens, ignore_eos: true, temperature: 0 }, agent);
    if (outcome.ttftMs !== null) remote.push(outcome.ttftMs);
  };
  // The first half warms up each side; which side goes first alternates.
  for (const [k, r] of [...single, ...single].entries()) {
    if (k % 2 === 0) {
      await runLocal(r);
      await runRemote(r);
    } else {
      await runRemote(r);
      await runLocal(r);
    }
  }
  agent.destroy();
  await server.stop();
  await engine.close();
  sequential.push({ inProcess: local.slice(singles), serve: remote.slice(singles) });
  log(`one at a time, pair ${i + 1}: TTFT p50 in-process ${fmt(percentile(local.slice(singles), 50), 2)} ms, serve ${fmt(percentile(remote.slice(singles), 50), 2)} ms`);
}
const singleOverhead = median(sequential.map((p) => percentile(p.serve, 50) - percentile(p.inProcess, 50)));
if (singles > 0) log(`median: one request at a time, TTFT p50 overhead ${fmt(singleOverhead, 2)} ms (goal < 2 ms)`);

let connections: Record<string, number> | null = null;
if (!args['skip-connections']) {
  const count = Number(args.connections);
  const outputTokens = Number(args['connection-tokens']);
  const workload = generateWorkload({ numRequests: count, promptLength: 8, outputLength: outputTokens, arrival: { kind: 'burst' }, seed: 1 }, namedConfig(settings.model).vocabSize);
  const server = await startKbServe([...serveArgs, '--max-waiting', String(count), '--api-server-count', String(apiServerCounts.at(-1))]);
  try {
    // Open streams: counted as each request is sent and as it ends.
    let open = 0;
    let peakOpen = 0;
    const agent = keepAliveAgent();
    const start = performance.now();
    let gauges = '';
    const sampler = setTimeout(async () => {
      const text = await fetch(`${server.url}/metrics`).then((r) => r.text());
      gauges = ['running', 'waiting'].map((g) => `${g} ${/vllm:num_requests_(?:running|waiting)\{[^}]*\} (\d+)/.exec(text.slice(text.indexOf(`vllm:num_requests_${g}{`)))?.[1]}`).join(', ');
    }, 500);
    const outcomes = await Promise.all(
      workload.map(async (r) => {
        open++;
        peakOpen = Math.max(peakOpen, open);
        const outcome = await streamCompletion(server.url, { prompt: r.promptIds, max_tokens: r.maxNewTokens, ignore_eos: true, temperature: 0 }, agent);
        open--;
        return outcome;
      }),
    );
    clearTimeout(sampler);
    agent.destroy();
    const wallMs = performance.now() - start;
    const errors = outcomes.filter((o) => o.error !== null);
    const short = outcomes.filter((o) => o.error === null && o.completionTokens !== outputTokens);
    const ttfts = outcomes.filter((o) => o.ttftMs !== null).map((o) => o.ttftMs!);
    connections = { count, peakOpen, errors: errors.length, short: short.length, wallMs, ttftP50Ms: percentile(ttfts, 50), ttftP99Ms: percentile(ttfts, 99) };
    log(
      `${count} concurrent streams (prompt 8, ${outputTokens} tokens each): ${count - errors.length - short.length} complete, ${errors.length} errors, ${short.length} short; ` +
        `${peakOpen} open at once; server at 0.5 s: ${gauges || 'n/a'}; TTFT p50 ${fmt(connections.ttftP50Ms)} ms, p99 ${fmt(connections.ttftP99Ms)} ms; ${fmt(wallMs / 1000, 2)} s in all`,
    );
    if (errors.length > 0) log(`first error: ${errors[0].error}`);
  } finally {
    await server.stop();
  }
}
log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
if (args.json) process.stdout.write(`${JSON.stringify({ lab: args.lab, pairs, throughputRatio, ttftOverheadMs: ttftOverhead, singleTtftOverheadMs: singleOverhead, connections }, null, 2)}\n`);
