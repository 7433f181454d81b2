// The step loop, one for every host: while requests wait, schedule a step, run its forward
// pass, apply the sampled tokens, and send the events out. Where the loop runs (the engine
// worker on the real clock, the main thread on the sim's virtual clock) is the host's business:
// how a forward pass takes its time, how an idle loop waits, how events leave.
import type { ForwardBatch, StepResult } from '../backend/backend.ts';
import type { EngineCore } from './engine-core.ts';
import type { EngineEvent } from './request.ts';

export interface StepHost {
  /** False once the host is closing: the loop stops before its next step. */
  readonly open: boolean;
  /** Runs the step's forward pass; resolves when the step has ended on the engine clock, with null if the host closed meanwhile. */
  forward(batch: ForwardBatch): Promise<StepResult | null>;
  /** Sends events to the clients. */
  emit(events: EngineEvent[]): void;
  /** Nothing to run: resolves when a request, a wake-up or closing may have changed that. */
  idle(): Promise<void>;
  /** Between two steps: lets requests and aborts that arrived during the step in before the next schedule. */
  pause(): Promise<void>;
}

export async function runSteps(core: EngineCore, host: StepHost): Promise<void> {
  while (host.open) {
    if (!core.hasWork()) {
      await host.idle();
      continue;
    }
    const batch = core.schedule();
    if (batch === null) throw new Error('the scheduler found nothing to run while requests wait');
    const result = await host.forward(batch);
    if (result === null) break;
    core.postprocess(result);
    host.emit(core.takeEvents());
    await host.pause();
  }
}
