// The two sides of the comparison behind one interface, so run.ts can interleave them:
// llama.cpp through node-llama-cpp, and kb's engine (cpu backend) through createEngine.
// Both run one sequence at a time (batch 1), greedy, on the same prompt ids.
//
// Prompt processing: from the start of the prompt's forward pass to its first sampled token.
// Generation: the tokens after the first one over the time from the first to the last, i.e.
// 1 / TPOT. CPU time is the whole process's (every thread, native or worker) over the same span:
// on a machine shared with other work, tokens / (CPU time / threads) is roughly the rate the
// run would reach with its cores to itself (spinning threads count as busy, so it errs low).

import { createEngine, type Engine } from '../../src/engine/index.ts';
import { F32_KV_CACHE, type LlamaModel, type LlamaSequence } from './node-llama-cpp.ts';

export interface Span {
  /** Tokens processed (prompt) or generated (after the first) in the span. */
  tokens: number;
  ms: number;
  cpuMs: number;
}

export interface Peer {
  readonly name: string;
  /** Runs the prompt and samples one token. */
  prefill(promptIds: number[]): Promise<Span>;
  /** Runs the prompt, then `newTokens` more; returns the span after the first token and all greedy tokens. */
  generate(promptIds: number[], newTokens: number): Promise<{ span: Span; tokens: number[] }>;
  close(): Promise<void>;
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export async function llamaCppPeer(model: LlamaModel, options: { threads: number; contextSize: number; batchSize: number }): Promise<Peer> {
  const context = await model.createContext({
    contextSize: options.contextSize,
    batchSize: options.batchSize,
    threads: options.threads,
    sequences: 1,
    ...F32_KV_CACHE,
  });
  const sequence: LlamaSequence = context.getSequence();
  return {
    name: 'llama.cpp',
    async prefill(promptIds) {
      await sequence.clearHistory();
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      const tokens = sequence.evaluate(promptIds, { temperature: 0 });
      const first = await tokens.next();
      const span = { tokens: promptIds.length, ms: performance.now() - t0, cpuMs: cpuMsSince(cpu) };
      await tokens.return();
      if (first.done) throw new Error('llama.cpp returned no token');
      return span;
    },
    async generate(promptIds, newTokens) {
      await sequence.clearHistory();
      const out: number[] = [];
      const stream = sequence.evaluate(promptIds, { temperature: 0 });
      let cpu = process.cpuUsage();
      let t0 = performance.now();
      for (let i = 0; i <= newTokens; i++) {
        const next = await stream.next();
        if (next.done) break;
        out.push(next.value);
        if (i === 0) {
          cpu = process.cpuUsage();
          t0 = performance.now();
        }
      }
      const span = { tokens: out.length - 1, ms: performance.now() - t0, cpuMs: cpuMsSince(cpu) };
      await stream.return();
      return { span, tokens: out };
    },
    close: () => context.dispose(),
  };
}

export async function kbPeer(options: { model: string; weightsSeed: number; threads: number; maxPromptTokens: number }): Promise<Peer & { engine: Engine }> {
  const engine = await createEngine({
    backend: 'cpu',
    model: options.model,
    weightsSeed: options.weightsSeed,
    threads: options.threads,
    prefixCaching: false,
    // One sequence, its whole prompt in one step, as llama.cpp runs it.
    scheduler: { maxNumSeqs: 1, prefillMaxBatch: 1, maxBatchedTokens: options.maxPromptTokens, chunkSize: 0 },
  });
  const run = async (promptIds: number[], maxNewTokens: number) => {
    const handle = engine.submit({ promptIds, maxNewTokens, temperature: 0 });
    let cpuAtFirst: NodeJS.CpuUsage | null = null;
    for await (const event of handle) {
      if (event.type === 'token' && event.index === 0) cpuAtFirst = process.cpuUsage();
      if (event.type === 'error') throw new Error(`kb engine: ${event.message}`);
    }
    const result = await handle.done;
    return { result, cpuAfterFirstMs: cpuAtFirst ? cpuMsSince(cpuAtFirst) : Number.NaN };
  };
  return {
    name: 'kb',
    engine,
    async prefill(promptIds) {
      const cpu = process.cpuUsage();
      const { result } = await run(promptIds, 1);
      const t = result.timeline;
      if (t.admit === null || t.tokenTimes.length === 0) throw new Error('kb engine returned no token');
      return { tokens: promptIds.length, ms: t.tokenTimes[0] - t.admit, cpuMs: cpuMsSince(cpu) };
    },
    async generate(promptIds, newTokens) {
      const { result, cpuAfterFirstMs } = await run(promptIds, newTokens + 1);
      const times = result.timeline.tokenTimes;
      const span = { tokens: times.length - 1, ms: times[times.length - 1] - times[0], cpuMs: cpuAfterFirstMs };
      return { span, tokens: result.outputIds };
    },
    close: () => engine.close(),
  };
}
