// Lab-sourced kb-calc variables: before a card is asked, each `{ lab, metric, fallback }`
// variable gets the learner's own figure from their latest completed run of that lab on this
// machine (sim runs are predictions, not this machine, so they are passed over), with a line
// saying where it came from; with no such run, the fallback and how to get the real figure.
import type { KbDatabase } from '../store/db.ts';
import { labRunsOf, type LabRunRow } from '../store/lab-runs.ts';
import type { CalcSpec, LabFigure } from '../model/knowledge-base.ts';

interface StoredPoint {
  label: string | null;
  metrics?: Record<string, number>;
}

interface StoredResult {
  verdict?: string;
  points?: StoredPoint[];
  sweepMetrics?: Record<string, number>;
}

/** "just now", "5 minutes ago", "3 hours ago", "2 days ago". */
export function ago(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'} ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} hour${hours === 1 ? '' : 's'} ago`;
  const days = Math.floor(hours / 24);
  return `${days} days ago`;
}

/** The metric (`name` or `name@point`) of a stored run, or undefined when the run has none. */
export function storedMetric(result: unknown, metric: string): number | undefined {
  const r = (result ?? {}) as StoredResult;
  const [base, point] = metric.split('@');
  const points = r.points ?? [];
  if (point !== undefined) return points.find((p) => p.label === point)?.metrics?.[base];
  const single = points.length === 1 && points[0].label === null ? points[0].metrics?.[base] : undefined;
  return single ?? r.sweepMetrics?.[base];
}

/** The learner's figure for one variable, from their runs of `lab` newest first. */
export function labFigure(lab: string, metric: string, runs: readonly LabRunRow[], now: number): LabFigure {
  const run = runs.find((r) => r.status === 'ok' && r.backend !== 'sim');
  const howTo = `run kb lab ${lab} for your own figure`;
  if (!run) return { value: null, source: `a typical figure: you have no complete run of ${lab} on this machine yet; ${howTo}`, notReproduced: null };
  const value = storedMetric(run.result, metric);
  if (value === undefined || !Number.isFinite(value)) {
    return { value: null, source: `a typical figure: your last ${lab} (run #${run.id}) has no ${metric}; ${howTo}`, notReproduced: null };
  }
  const verdict = (run.result as StoredResult | null)?.verdict;
  return {
    value,
    source: `your last ${lab}, ${ago(now - run.startedAt)} (run #${run.id})`,
    notReproduced: verdict === 'not reproduced' ? `Your last ${lab} (run #${run.id}, ${ago(now - run.startedAt)}) did not show this — why?` : null,
  };
}

/** The spec with every lab variable's figure filled in from the database (other specs as they are). */
export function withLabFigures(spec: CalcSpec | null, db: KbDatabase, now: number): CalcSpec | null {
  if (spec === null || !spec.vars.some((v) => v.kind === 'lab')) return spec;
  const runsOf = new Map<string, LabRunRow[]>();
  const vars = spec.vars.map((variable) => {
    if (variable.kind !== 'lab') return variable;
    if (!runsOf.has(variable.lab)) runsOf.set(variable.lab, labRunsOf(db, variable.lab, 20));
    return { ...variable, figure: labFigure(variable.lab, variable.metric, runsOf.get(variable.lab)!, now) };
  });
  return { ...spec, vars };
}
