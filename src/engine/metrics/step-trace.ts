// Every step's shape and its start on the engine clock, kept when the engine is created with
// traceSteps. A step's time is the gap to the next step's start (the whole loop: scheduling,
// the forward pass, handing out tokens), which is what the sim's virtual clock advances by.
import type { StepShape } from '../backend/sim/step-shape.ts';

/** Enough for any calibration sweep; a longer run keeps its first steps. */
export const MAX_TRACED_STEPS = 100_000;

export interface TracedStep extends StepShape {
  /** Engine-clock ms when the step was scheduled. */
  start: number;
  /** Engine-clock ms when its result had been applied. */
  end: number;
  /** Work was waiting when it ended, so the next step followed at once (its gap is a step time). */
  busy: boolean;
}

export class StepTrace {
  private steps: TracedStep[] = [];

  record(step: TracedStep): void {
    if (this.steps.length < MAX_TRACED_STEPS) this.steps.push(step);
  }

  /** The steps since the previous call. */
  take(): TracedStep[] {
    const steps = this.steps;
    this.steps = [];
    return steps;
  }
}

/**
 * The measured time of each step that was followed at once by another: the gap between their
 * starts. The last step of a busy stretch has no successor and is left out.
 */
export function stepTimes(steps: readonly TracedStep[]): { shape: StepShape; ms: number }[] {
  const out: { shape: StepShape; ms: number }[] = [];
  for (let i = 0; i + 1 < steps.length; i++) {
    const step = steps[i];
    if (!step.busy) continue;
    const { tokens, sampled, seqs, decodes, attended } = step;
    out.push({ shape: { tokens, sampled, seqs, decodes, attended }, ms: steps[i + 1].start - step.start });
  }
  return out;
}
