// KV usage over time, kept small: one point per step until the series is full, then
// neighbouring points merge pairwise and each new point averages twice as many steps. A run
// of any length therefore leaves at most MAX_USAGE_POINTS points, evenly spaced in steps.

/** The KV pool as one step leaves it: what is held and how much of it holds tokens. */
export interface StepUsage {
  running: number;
  /** Blocks held by running sequences (the pool's used blocks). */
  reservedBlocks: number;
  /** Slots in those blocks holding K/V once the step has run (a shared block counts once). */
  usedSlots: number;
}

export const MAX_USAGE_POINTS = 200;

export interface UsagePoint extends StepUsage {
  /** Engine-clock ms when the point's first step started. */
  time: number;
  /** Steps averaged into this point. */
  steps: number;
}

export class UsageSeries {
  private readonly maxPoints: number;
  private points: UsagePoint[] = [];
  private pending: UsagePoint | null = null;
  private stride = 1;

  constructor(maxPoints = MAX_USAGE_POINTS) {
    if (!Number.isInteger(maxPoints) || maxPoints < 2) throw new RangeError(`maxPoints must be an integer >= 2 (got ${maxPoints})`);
    this.maxPoints = maxPoints;
  }

  record(time: number, usage: StepUsage): void {
    this.pending = this.pending === null ? { time, steps: 1, ...usage } : merge(this.pending, { time, steps: 1, ...usage });
    if (this.pending.steps < this.stride) return;
    this.points.push(this.pending);
    this.pending = null;
    // Full: keep the room for the pending point, and average pairs from now on.
    if (this.points.length >= this.maxPoints) {
      const merged: UsagePoint[] = [];
      for (let i = 0; i < this.points.length; i += 2) {
        merged.push(i + 1 < this.points.length ? merge(this.points[i], this.points[i + 1]) : this.points[i]);
      }
      this.points = merged;
      this.stride *= 2;
    }
  }

  /** The points since the previous take (the last one may average fewer steps); starts afresh. */
  take(): UsagePoint[] {
    const points = this.pending === null ? this.points : [...this.points, this.pending];
    this.points = [];
    this.pending = null;
    this.stride = 1;
    return points;
  }
}

/** One point for both: their first step's time, and their values averaged over all their steps. */
function merge(a: UsagePoint, b: UsagePoint): UsagePoint {
  const steps = a.steps + b.steps;
  const mean = (x: number, y: number) => (x * a.steps + y * b.steps) / steps;
  return {
    time: a.time,
    steps,
    running: mean(a.running, b.running),
    reservedBlocks: mean(a.reservedBlocks, b.reservedBlocks),
    usedSlots: mean(a.usedSlots, b.usedSlots),
  };
}
