// A fresh engine worker compiles its code on the first steps it runs (the step loop, the
// sampler, the kernels' JavaScript and WebAssembly): the first step of a cold cpu engine took
// 15-30 ms where a warm one takes 3-5, and a burst of requests waited it out in the queue.
// vLLM warms its engine up before it serves (a profiling run, CUDA graph capture); kb's worker
// runs a few short requests through a throwaway core on the same backend before it says it is
// ready, so no request and no statistic of the engine ever sees those steps. The throwaway
// core's K/V lands in pool blocks the real core will overwrite before it reads them.
import type { Backend } from '../backend/backend.ts';
import type { EngineCore } from '../core/engine-core.ts';

/** The warm-up requests: prefilled together, then a few decode steps as a batch. */
const WARM_UP_REQUESTS = 4;
const WARM_UP_PROMPT_TOKENS = 16;
const WARM_UP_OUTPUT_TOKENS = 3;

export async function warmEngine(backend: Backend, scratch: EngineCore): Promise<void> {
  for (let id = 0; id < WARM_UP_REQUESTS; id++) {
    scratch.add(id, { promptIds: Array.from({ length: WARM_UP_PROMPT_TOKENS }, (_, i) => id + i + 1), maxNewTokens: WARM_UP_OUTPUT_TOKENS });
  }
  while (scratch.hasWork()) {
    const batch = scratch.schedule();
    if (batch === null) break;
    scratch.postprocess(await backend.step(batch));
    scratch.takeEvents();
  }
}
