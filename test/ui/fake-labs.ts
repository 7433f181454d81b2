// A lab runner for the screen tests: no engine; the test drives the run (progress, finish)
// and a stopped run settles as partial, as the real runner does.
import type { LabProgress } from '../../src/lab/progress.ts';
import type { CardLabHooks, CardLabOutcome, CardLabs } from '../../src/app/card-labs/card-labs.ts';

export function labOutcome(lab: string, overrides: Partial<CardLabOutcome> = {}): CardLabOutcome {
  return {
    lab,
    title: 'TTFT breakdown: queue wait vs prefill',
    status: 'ok',
    verdict: 'reproduced',
    checks: [
      { pass: true, say: 'queue wait is at least 80% of TTFT p99', measured: 'queue_wait.p99 / ttft.p99 = 0.937; expected >= 0.8' },
      { pass: true, say: 'prefill is a small part of TTFT p99', measured: 'prefill_first.p99 / ttft.p99 = 0.063; expected <= 0.2' },
    ],
    figures: [],
    chart: [],
    note: null,
    runId: 7,
    ...overrides,
  };
}

export function progress(requestsDone: number, requestsTotal = 256): LabProgress {
  return { point: null, pointIndex: 0, points: 1, phase: 'measure', run: 1, runs: 1, requestsDone, requestsTotal, elapsedMs: 1500 };
}

export class FakeLabs implements CardLabs {
  readonly calls: string[] = [];
  /** What latest() says; a finished run replaces it. */
  latestText = 'not run yet';
  private pending: { lab: string; hooks: CardLabHooks; resolve(outcome: CardLabOutcome): void; reject(error: Error): void } | null = null;

  latest(lab: string): string {
    return `${lab} · ${this.latestText}`;
  }

  run(lab: string, hooks: CardLabHooks): Promise<CardLabOutcome> {
    this.calls.push(`run ${lab}`);
    return new Promise((resolve, reject) => {
      this.pending = { lab, hooks, resolve, reject };
      hooks.signal.addEventListener('abort', () => {
        this.calls.push(`abort ${lab}`);
        this.settle(labOutcome(lab, { status: 'partial', verdict: 'incomplete', note: 'interrupted before every request finished', checks: labOutcome(lab).checks.map((c) => ({ ...c, pass: null })) }));
      });
    });
  }

  /** Reports progress of the running lab. */
  report(p: LabProgress): void {
    this.pending?.hooks.onProgress(p);
  }

  finish(overrides: Partial<CardLabOutcome> = {}): void {
    if (!this.pending) throw new Error('no lab is running');
    this.settle(labOutcome(this.pending.lab, overrides));
  }

  fail(message: string): void {
    this.pending?.reject(new Error(message));
    this.pending = null;
  }

  private settle(outcome: CardLabOutcome): void {
    if (!this.pending) return;
    this.latestText = `${outcome.verdict} ${outcome.checks.filter((c) => c.pass).length}/${outcome.checks.length} · <1m ago`;
    this.pending.resolve(outcome);
    this.pending = null;
  }
}
