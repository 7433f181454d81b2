import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { namedDevices } from '../../src/engine/backend/sim/gpus.ts';
import { createSimBackend } from '../../src/engine/backend/sim/sim-backend.ts';
import type { Backend, ForwardBatch } from '../../src/engine/backend/backend.ts';
import { VirtualClock } from '../../src/engine/engine-clock.ts';
import { EngineCore } from '../../src/engine/core/engine-core.ts';
import { type EngineStats, StepStats } from '../../src/engine/metrics/step-stats.ts';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import type { EngineEvent, GenerateRequest } from '../../src/engine/core/request.ts';
import { requestSeed } from '../../src/engine/sampling-rng.ts';
import { type SchedulerOptions, resolveSchedulerOptions } from '../../src/engine/core/scheduler-options.ts';

const config: ModelConfig = { name: 'test', vocabSize: 97, nCtx: 64, nEmbd: 8, nLayer: 1, nHead: 1, layerNormEps: 1e-5 };

interface Run {
  events: EngineEvent[];
  batches: { tokens: number; seqs: number; sampled: number }[];
  /** Request ids in the order they were first admitted, with the step of admission. */
  admits: { id: number; step: number }[];
  outputs: Map<number, number[]>;
  /** The engine's statistics, as stats() reports them. */
  stats: () => EngineStats;
}

/** Drives an engine core on the sim backend to completion, synchronously step by step (onStep sees each step scheduled). */
async function drive(
  requests: GenerateRequest[],
  scheduler: Partial<SchedulerOptions>,
  numBlocks: number,
  blockSize: number,
  prefixCaching = true,
  onStep: (core: EngineCore) => void = () => {},
): Promise<Run> {
  const sim = createSimBackend({ config, kv: { numBlocks, blockSize }, device: namedDevices['A100-40GB'], seed: 1 });
  const batches: Run['batches'] = [];
  const spy: Backend = {
    ...sim,
    step(batch: ForwardBatch) {
      onStep(core);
      batches.push({ tokens: batch.tokenIds.length, seqs: batch.contextLens.length, sampled: batch.sampleSeqs.length });
      return sim.step(batch);
    },
  };
  const clock = new VirtualClock();
  const stats = new StepStats(clock);
  const core = new EngineCore({ config, scheduler: resolveSchedulerOptions(scheduler), numBlocks, blockSize, prefixCaching, seed: 3 }, clock, stats);
  requests.forEach((request, id) => core.add(id, request));
  const events: EngineEvent[] = [...core.takeEvents()];
  let steps = 0;
  while (core.hasWork()) {
    const batch = core.schedule();
    expect(batch).not.toBeNull();
    core.postprocess(await spy.step(batch!));
    clock.advanceTo(++steps);
    events.push(...core.takeEvents());
    expect(steps).toBeLessThan(10_000);
  }
  const admits = events.flatMap((e) => (e.type === 'admit' ? e.ids.map((id) => ({ id, step: e.time })) : []));
  const outputs = new Map<number, number[]>();
  for (const e of events) {
    if (e.type === 'tokens') e.ids.forEach((id, r) => outputs.set(id, [...(outputs.get(id) ?? []), e.tokens[r]]));
  }
  return { events, batches, admits, outputs, stats: () => stats.take(core) };
}

const requestArb = fc.record({
  promptLength: fc.integer({ min: 1, max: 40 }),
  family: fc.integer({ min: 0, max: 2 }),
  maxNewTokens: fc.integer({ min: 1, max: 20 }),
  temperature: fc.constantFrom(0, 0.8),
});
const optionsArb = fc.record({
  policy: fc.constantFrom('continuous' as const, 'static' as const),
  maxBatchedTokens: fc.integer({ min: 1, max: 64 }),
  maxNumSeqs: fc.integer({ min: 1, max: 8 }),
  prefillMaxBatch: fc.integer({ min: 1, max: 8 }),
  chunkSize: fc.integer({ min: 0, max: 24 }),
  kvReservation: fc.constantFrom('paged' as const, 'contiguous' as const),
});

function toRequests(specs: { promptLength: number; family: number; maxNewTokens: number; temperature: number }[]): GenerateRequest[] {
  // Prompts of one family share their first tokens, so the prefix cache gets hits.
  return specs.map((s, i) => ({
    promptIds: Array.from({ length: s.promptLength }, (_, j) => (j < 20 ? s.family * 5 + (j % 4) : (i * 7 + j) % 97)),
    maxNewTokens: s.maxNewTokens,
    temperature: s.temperature,
  }));
}

describe('scheduler', () => {
  const coverage = { preempted: false, prefixHits: false };

  it('finishes every request within the budgets, admits first come first served, frees every block, and matches each request run alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(requestArb, { minLength: 1, maxLength: 10 }),
        optionsArb,
        fc.integer({ min: 2, max: 40 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        async (specs, options, numBlocks, blockSize, prefixCaching) => {
          const requests = toRequests(specs);
          const run = await drive(requests, options, numBlocks, blockSize, prefixCaching);
          const chunkingOff = options.chunkSize === 0;
          for (let id = 0; id < requests.length; id++) {
            const r = requests[id];
            const blocksNeeded = Math.ceil(Math.min(r.promptIds.length + r.maxNewTokens - 1, config.nCtx) / blockSize);
            const neverFits = blocksNeeded > numBlocks || (chunkingOff && r.promptIds.length > options.maxBatchedTokens);
            const ending = run.events.filter((e) => (e.type === 'finish' || e.type === 'error') && e.id === id);
            expect(ending).toHaveLength(1);
            expect(ending[0].type).toBe(neverFits ? 'error' : 'finish');
            if (!neverFits) expect(run.outputs.get(id)).toHaveLength(r.maxNewTokens);
          }
          for (const b of run.batches) {
            expect(b.tokens).toBeGreaterThan(0);
            expect(b.tokens).toBeLessThanOrEqual(options.maxBatchedTokens);
            expect(b.seqs).toBeLessThanOrEqual(options.maxNumSeqs);
          }
          // FCFS: first admissions follow submission order (rejected requests aside).
          const admitted = run.admits.map((a) => a.id);
          expect(admitted).toEqual([...admitted].sort((a, b) => a - b));
          if (options.policy === 'continuous') {
            const perStep = new Map<number, number>();
            for (const a of run.admits) perStep.set(a.step, (perStep.get(a.step) ?? 0) + 1);
            for (const count of perStep.values()) expect(count).toBeLessThanOrEqual(options.prefillMaxBatch);
          }
          expect(run.stats().kv.usedBlocks).toBe(0);
          // The sim's tokens hash the K/V each sequence reads through its block table, so
          // equal outputs mean paging, prefix hits and preemption put every token in place.
          for (let id = 0; id < requests.length; id++) {
            if (run.outputs.has(id)) expect(run.outputs.get(id)).toEqual(await runAlone(requests[id], id, blockSize));
          }
          const stats = run.stats();
          coverage.preempted ||= stats.scheduler.preemptions > 0;
          coverage.prefixHits ||= stats.kv.prefixHitTokens > 0;
        },
      ),
      { numRuns: Number(process.env.KB_PROPERTY_RUNS ?? 150) },
    );
    // The random cases must have exercised the paths this property is about.
    expect(coverage).toEqual({ preempted: true, prefixHits: true });
  });

  it('preempts the newest running sequence when blocks run out, and recomputes it', async () => {
    const requests = toRequests([0, 1, 2, 3].map((family) => ({ promptLength: 8, family, maxNewTokens: 16, temperature: 0 })));
    const run = await drive(requests, { maxNumSeqs: 4 }, 6, 4, false);
    expect(run.stats().scheduler.preemptions).toBeGreaterThan(0);
    for (let id = 0; id < 4; id++) expect(run.outputs.get(id)).toHaveLength(16);
  });

  it('static batching admits nobody until the whole batch has finished', async () => {
    const requests = toRequests([5, 1, 1, 1].map((maxNewTokens, i) => ({ promptLength: 4, family: i, maxNewTokens, temperature: 0 })));
    const run = await drive(requests, { policy: 'static', maxNumSeqs: 2 }, 64, 4);
    const admitStep = (id: number) => run.admits.find((a) => a.id === id)!.step;
    const finishStep = (id: number) => run.events.find((e) => e.type === 'finish' && e.id === id)!.time;
    expect(admitStep(2)).toBeGreaterThanOrEqual(Math.max(finishStep(0), finishStep(1)));
    const continuous = await drive(requests, { policy: 'continuous', maxNumSeqs: 2 }, 64, 4);
    expect(continuous.admits.find((a) => a.id === 2)!.step).toBeLessThan(admitStep(2));
  });

  it('caps new admissions per step at prefillMaxBatch', async () => {
    const requests = toRequests(Array.from({ length: 10 }, (_, i) => ({ promptLength: 3, family: i % 3, maxNewTokens: 2, temperature: 0 })));
    const run = await drive(requests, { prefillMaxBatch: 3, maxNumSeqs: 10 }, 64, 4);
    expect(run.admits.filter((a) => a.step === 0)).toHaveLength(3);
  });

  it('rejects a request the pool can never hold, and the rest still run', async () => {
    const requests = [
      { promptIds: Array.from({ length: 30 }, (_, i) => i), maxNewTokens: 10 },
      { promptIds: [1, 2], maxNewTokens: 3 },
      { promptIds: Array.from({ length: 65 }, () => 1), maxNewTokens: 1 },
    ];
    const run = await drive(requests, {}, 8, 4);
    const error = (id: number) => run.events.find((e) => e.type === 'error' && e.id === id);
    expect(error(0)).toMatchObject({ message: expect.stringContaining('needs 10 KV blocks') });
    expect(error(2)).toMatchObject({ message: expect.stringContaining("the model's context is 64") });
    expect(run.outputs.get(1)).toHaveLength(3);
  });

  it('contiguous reservation: a sequence holds blocks for its whole maximum length from admission to finish, never grows and is never preempted', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(requestArb, fc.integer({ min: 1, max: 20 })), { minLength: 1, maxLength: 10 }),
        optionsArb,
        fc.integer({ min: 2, max: 40 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        async (specs, options, numBlocks, blockSize, prefixCaching) => {
          // Outputs that end early (at a stop) under their declared maximum.
          const requests = toRequests(specs.map(([spec]) => spec)).map((r, i) => ({ ...r, stopAfterTokens: specs[i][1] }));
          const tables = new Map<number, number[]>();
          const run = await drive(requests, { ...options, kvReservation: 'contiguous' }, numBlocks, blockSize, prefixCaching, (core) => {
            for (const seq of core.scheduler.running) {
              if (seq.blockTable.length === 0) continue; // a static-batch member not started yet
              const atAdmission = tables.get(seq.id);
              if (atAdmission === undefined) {
                expect(seq.blockTable.length).toBe(Math.ceil(core.scheduler.maxSlots(seq) / blockSize));
                tables.set(seq.id, [...seq.blockTable]);
              } else {
                expect(seq.blockTable).toEqual(atAdmission);
              }
            }
          });
          const stats = run.stats();
          expect(stats.scheduler.preemptions).toBe(0);
          expect(stats.kv.usedBlocks).toBe(0);
          for (let id = 0; id < requests.length; id++) {
            const r = requests[id];
            const ending = run.events.find((e) => (e.type === 'finish' || e.type === 'error') && e.id === id)!;
            if (ending.type === 'error') continue; // can never fit this pool, in either mode
            expect(ending).toMatchObject({ reason: r.stopAfterTokens <= r.maxNewTokens ? 'stop' : 'length' });
            expect(run.outputs.get(id)).toHaveLength(Math.min(r.stopAfterTokens, r.maxNewTokens));
            expect(run.outputs.get(id)).toEqual(await runAlone(r, id, blockSize));
          }
        },
      ),
      { numRuns: Number(process.env.KB_PROPERTY_RUNS ?? 100) },
    );
  });

  it('contiguous reservation fits fewer sequences at once than paged blocks in the same pool', async () => {
    // Each reserves ceil((8 + 40 - 1) / 4) = 12 blocks up front but fills 3 (8 + 4 tokens, the last never fed back).
    const requests = toRequests([0, 1, 2, 3].map((family) => ({ promptLength: 8, family, maxNewTokens: 40, temperature: 0 }))).map((r) => ({
      ...r,
      stopAfterTokens: 4,
    }));
    const paged = await drive(requests, { kvReservation: 'paged' }, 12, 4, false);
    const contiguous = await drive(requests, { kvReservation: 'contiguous' }, 12, 4, false);
    expect(paged.stats().scheduler.maxRunning).toBe(4);
    expect(contiguous.stats().scheduler.maxRunning).toBe(1);
    for (let id = 0; id < 4; id++) expect(contiguous.outputs.get(id)).toEqual(paged.outputs.get(id));
    const utilization = (run: Run) => {
      const s = run.stats().scheduler;
      return s.usedSlotsSum / (s.reservedBlocksSum * 4);
    };
    expect(utilization(contiguous)).toBeLessThan(0.25);
    expect(utilization(paged)).toBeGreaterThan(0.75);
  });

  it('ends a request with reason stop after stopAfterTokens, and refuses a bad value', async () => {
    const run = await drive([{ promptIds: [1, 2], maxNewTokens: 9, stopAfterTokens: 3 }, { promptIds: [1], maxNewTokens: 2, stopAfterTokens: 0 }], {}, 16, 4);
    expect(run.outputs.get(0)).toHaveLength(3);
    expect(run.events.find((e) => e.type === 'finish' && e.id === 0)).toMatchObject({ reason: 'stop' });
    expect(run.events.find((e) => e.type === 'error' && e.id === 1)).toMatchObject({ type: 'error', message: expect.stringContaining('stopAfterTokens must be an integer >= 1') });
  });

  it('validates kvReservation with the other options', () => {
    expect(resolveSchedulerOptions().kvReservation).toBe('paged');
    expect(resolveSchedulerOptions({ kvReservation: 'contiguous' }).kvReservation).toBe('contiguous');
    expect(() => resolveSchedulerOptions({ kvReservation: 'reserved' as never, maxNumSeqs: 0 })).toThrow(
      /kvReservation must be one of paged, contiguous \(got reserved\).*maxNumSeqs/,
    );
  });
});

/** One request alone on a roomy engine, with the seed it had among the others. */
async function runAlone(request: GenerateRequest, id: number, blockSize: number): Promise<number[] | undefined> {
  const run = await drive([{ ...request, seed: requestSeed(3, id) }], { maxBatchedTokens: 64, chunkSize: 0 }, 64, blockSize, false);
  return run.outputs.get(0);
}
