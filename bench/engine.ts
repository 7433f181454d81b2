// Engine-level benchmark: what continuous batching buys through the whole engine (worker,
// scheduler, paged KV, backend), and what the scheduler costs per step. Run by hand:
//
//   . scripts/node-env.sh
//   node --import tsx bench/engine.ts [--model gpt2-tiny] [--concurrency 1,8,32] [--prompt 32]
//        [--new 64] [--threads N] [--json]
//
// For each concurrency C: a burst of C requests (unique prompts of --prompt tokens, --new output
// tokens each) on a warmed-up cpu engine. Two rates: end to end, generation tokens/s = output
// tokens / (last finish - first submit), which includes the burst's prefill (C x --prompt
// tokens); and the decode rate, C / TPOT p50: how fast the C sequences advance together once
// they are all decoding, which is what batching the decode buys. Also the host time the scheduler and bookkeeping took per step next to the
// forward pass. Then the scheduler alone on the sim backend (no model math) at 256 requests,
// in microseconds per step. Goal: C=32 at >= 5x the tokens/s of C=1; overhead a few % at most.
// Figures from a shared 2-core machine are noisy; compare the ratios of one run.
import { parseArgs } from 'node:util';
import { createEngine, type Engine } from '../src/engine/index.ts';
import { summarize } from '../src/engine/metrics/summary.ts';
import { generateWorkload } from '../src/engine/bench/workload.ts';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: 'gpt2-tiny' },
    concurrency: { type: 'string', default: '1,8,32' },
    prompt: { type: 'string', default: '32' },
    new: { type: 'string', default: '64' },
    threads: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const levels = args.concurrency.split(',').map(Number);
const promptLength = Number(args.prompt);
const outputLength = Number(args.new);
const log = (line: string) => {
  if (!args.json) process.stdout.write(`${line}\n`);
};

async function burst(engine: Engine, count: number, seed: number, newTokens = outputLength) {
  const requests = generateWorkload({ numRequests: count, promptLength, outputLength: newTokens, arrival: { kind: 'burst' }, seed }, engine.info.model.vocabSize);
  const before = await engine.stats();
  const results = await Promise.all(requests.map((r) => engine.submit({ promptIds: r.promptIds, maxNewTokens: r.maxNewTokens }).done));
  const after = await engine.stats();
  const steps = after.scheduler.steps - before.scheduler.steps;
  return {
    metrics: summarize(results.map((r) => r.timeline)),
    steps,
    forwardMs: after.forwardMs - before.forwardMs,
    overheadMs: after.overheadMs - before.overheadMs,
  };
}

const rows = [];
const engine = await createEngine({
  backend: 'cpu',
  model: args.model,
  threads: args.threads ? Number(args.threads) : undefined,
  prefixCaching: false,
  scheduler: { maxNumSeqs: Math.max(...levels), prefillMaxBatch: Math.max(...levels), maxBatchedTokens: Math.max(...levels) * promptLength },
});
log(`${engine.info.model.name} on ${engine.info.device}; ${engine.info.numBlocks} KV blocks; prompt ${promptLength}, ${outputLength} new tokens per request`);
try {
  await burst(engine, 2, 999); // warm-up: JIT, worker caches
  for (const [i, count] of levels.entries()) {
    const r = await burst(engine, count, i + 1);
    const row = {
      concurrency: count,
      tokensPerS: r.metrics.outputTokensPerS,
      decodeTokensPerS: (count * 1000) / r.metrics.tpotMs.p50,
      tpotMsP50: r.metrics.tpotMs.p50,
      steps: r.steps,
      forwardMsPerStep: r.forwardMs / r.steps,
      overheadUsPerStep: (r.overheadMs / r.steps) * 1000,
      overheadShare: r.overheadMs / r.forwardMs,
    };
    rows.push(row);
    log(
      `C=${String(count).padStart(3)}  ${row.tokensPerS.toFixed(1).padStart(8)} tokens/s end to end, ${row.decodeTokensPerS.toFixed(1).padStart(8)} decoding  TPOT p50 ${row.tpotMsP50.toFixed(2)} ms  ` +
        `forward ${row.forwardMsPerStep.toFixed(2)} ms/step  scheduler ${row.overheadUsPerStep.toFixed(0)} us/step (${(row.overheadShare * 100).toFixed(2)}%)`,
    );
  }
} finally {
  await engine.close();
}
const single = rows.find((r) => r.concurrency === 1);
const ratios = rows
  .filter((r) => r.concurrency > 1)
  .map((r) => ({
    concurrency: r.concurrency,
    speedup: single ? r.tokensPerS / single.tokensPerS : Number.NaN,
    decodeSpeedup: single ? r.decodeTokensPerS / single.decodeTokensPerS : Number.NaN,
  }));
const verdict = (x: number) => (x >= 5 ? 'met' : 'NOT met');
for (const r of ratios) {
  const goal = r.concurrency === 32 ? `  (goal >= 5x: decoding ${verdict(r.decodeSpeedup)}, end to end ${verdict(r.speedup)})` : '';
  log(`C=${r.concurrency} / C=1: decoding ${r.decodeSpeedup.toFixed(2)}x, end to end ${r.speedup.toFixed(2)}x${goal}`);
}

// The scheduler alone: 256 requests on the sim, so every host microsecond is bookkeeping;
// long outputs so the steady decode state dominates the admission steps.
const SIM_NEW_TOKENS = 256;
const sim = await createEngine({ backend: 'sim', model: 'gpt2', scheduler: { maxNumSeqs: 256, prefillMaxBatch: 256, maxBatchedTokens: 8192 } });
await burst(sim, 256, 6, SIM_NEW_TOKENS); // warm-up (JIT)
const simRun = await burst(sim, 256, 7, SIM_NEW_TOKENS);
await sim.close();
const simUsPerStep = (simRun.overheadMs / simRun.steps) * 1000;
log(`scheduler alone (sim, 256 running): ${simUsPerStep.toFixed(0)} us/step over ${simRun.steps} steps`);

if (args.json) process.stdout.write(`${JSON.stringify({ model: args.model, rows, ratios, simSchedulerUsPerStep: simUsPerStep }, null, 2)}\n`);
