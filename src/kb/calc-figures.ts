// Lab-sourced kb-calc variables: before a card is asked, each `{ lab, metric, fallback }`
// variable gets the learner's own figure from their latest completed run of that lab on this
// machine, with a line saying where it came from; with no such run, the fallback and how to
// get the real figure. Only a run of the lab as written counts: the card's question states
// the lab's workload and engine ("256 requests in one burst, 16 admitted per step"), so a run
// with --set or a preset changing them answers another question; a sim run is a prediction
// and an --endpoint run measured a server (maybe a remote GPU), neither is this machine.
import type { KbDatabase } from '../store/db.ts';
import { labRunsOf, type LabRunRow } from '../store/lab-runs.ts';
import { labNames } from '../lab/lab-names.ts';
import { labRoots } from './location.ts';
import { formatNumber } from './calc.ts';
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

interface StoredSettings {
  changed?: Array<{ key: string }>;
  endpoint?: unknown;
}

/** Settings that change what a run measures: the question's workload, engine and model. */
function changesTheQuestion(key: string): boolean {
  return key.startsWith('workload.') || key.startsWith('engine.') || key === 'model';
}

/** Why a complete run cannot give "your machine"'s figure, or null when it can. */
function notOwnFigure(run: LabRunRow): string | null {
  const settings = (run.settings ?? {}) as StoredSettings;
  if (run.backend === 'endpoint' || settings.endpoint) return 'measured a server (--endpoint)';
  if (run.backend === 'sim') return 'was a sim prediction';
  const changed = (settings.changed ?? []).map((c) => c.key).filter(changesTheQuestion);
  return changed.length > 0 ? `changed ${changed.join(', ')}` : null;
}

/** The learner's figure for one variable, from their runs of `lab` newest first. */
export function labFigure(lab: string, metric: string, runs: readonly LabRunRow[], now: number): LabFigure {
  const complete = runs.filter((r) => r.status === 'ok');
  const run = complete.find((r) => notOwnFigure(r) === null);
  const howTo = `run kb lab ${lab} for your own figure`;
  if (!run) {
    // Say why the newest complete run was passed over: the learner may think it counted.
    const skipped = complete[0];
    const why = skipped
      ? `your last complete ${lab} (run #${skipped.id}) ${notOwnFigure(skipped)}`
      : `you have no complete run of ${lab} on this machine yet`;
    return { value: null, source: `a typical figure: ${why}; ${howTo}`, notReproduced: null };
  }
  const value = storedMetric(run.result, metric);
  if (value === undefined || !Number.isFinite(value)) {
    return { value: null, source: `a typical figure: your last ${lab} (run #${run.id}) has no ${metric}; ${howTo}`, notReproduced: null };
  }
  const verdict = (run.result as StoredResult | null)?.verdict;
  return {
    // The figure as the question prints it (4 significant digits): the answer is computed
    // from what the learner reads. From the raw measurement (2000.49 printed as 2000), a sum
    // worked from the printed figures could miss an absolute tolerance and be marked wrong.
    value: Number(formatNumber(value)),
    source: `your last ${lab}, ${ago(now - run.startedAt)} (run #${run.id})`,
    notReproduced: verdict === 'not reproduced' ? `Your last ${lab} (run #${run.id}, ${ago(now - run.startedAt)}) did not show this — why?` : null,
  };
}

/**
 * The spec with every lab variable's figure filled in from the database (other specs as they
 * are). A lab the knowledge base at `root` does not have gets the fallback, saying so: it was
 * told to run `kb lab <name>`, which then failed (kb scan warns about such a link too).
 */
export function withLabFigures(spec: CalcSpec | null, db: KbDatabase, now: number, root: string): CalcSpec | null {
  if (spec === null || !spec.vars.some((v) => v.kind === 'lab')) return spec;
  const labs = new Set(labNames(labRoots(root)));
  const runsOf = new Map<string, LabRunRow[]>();
  const vars = spec.vars.map((variable) => {
    if (variable.kind !== 'lab') return variable;
    if (!labs.has(variable.lab)) {
      return { ...variable, figure: { value: null, source: `a typical figure: there is no lab named ${variable.lab} (kb lab lists them)`, notReproduced: null } };
    }
    if (!runsOf.has(variable.lab)) runsOf.set(variable.lab, labRunsOf(db, variable.lab));
    return { ...variable, figure: labFigure(variable.lab, variable.metric, runsOf.get(variable.lab)!, now) };
  });
  return { ...spec, vars };
}
