// A fresh engine worker compiles its code on the first steps it runs (the step loop, the
// sampler, the kernels' JavaScript and WebAssembly): the first step of a cold cpu engine took
// 15-30 ms where a warm one takes 3-5, and a burst of requests waited it out in the queue.
// vLLM warms its engine up before it serves (a profiling run, CUDA graph capture); kb's worker
// runs a few short requests through a throwaway core on the same backend before it says it is
// ready, so no request and no statistic of the engine ever sees those steps. The throwaway
// core's K/V lands in pool blocks the real core will overwrite before it reads them.
import type { Backend } from '../backend/backend.ts';
import type { EngineCore } from '../core/engine-core.ts';

/**
 * The warm-up requests: prefilled together, then decoded as a batch. V8 optimizes the step
 * loop's JavaScript and tiers the WebAssembly kernels up only after many calls: with 3 decode
 * steps a fresh gpt2-tiny engine's first run still stepped 25-29% slower than its third (median
 * step 3.2 against 2.5 ms) and its first step took 6-8 ms; with 40, its first run steps as fast
 * as its third (2.9 / 2.8 ms) and its first step takes ~5 ms (scratch runs, 8 engines each).
 */
const WARM_UP_REQUESTS = 4;
const WARM_UP_PROMPT_TOKENS = 16;
const WARM_UP_OUTPUT_TOKENS = 40;
/** A bigger model's steps are longer (and each runs more kernel calls): the warm-up stops here, at a step boundary. */
const WARM_UP_BUDGET_MS = 300;

export async function warmEngine(backend: Backend, scratch: EngineCore): Promise<void> {
  for (let id = 0; id < WARM_UP_REQUESTS; id++) {
    scratch.add(id, { promptIds: Array.from({ length: WARM_UP_PROMPT_TOKENS }, (_, i) => id + i + 1), maxNewTokens: WARM_UP_OUTPUT_TOKENS });
  }
  const deadline = performance.now() + WARM_UP_BUDGET_MS;
  while (scratch.hasWork() && performance.now() < deadline) {
    const batch = scratch.schedule();
    if (batch === null) break;
    scratch.postprocess(await backend.step(batch));
    scratch.takeEvents();
  }
}
