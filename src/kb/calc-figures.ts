// Lab-sourced kb-calc variables: before a card is asked, each `{ lab, metric, fallback }`
// variable gets the learner's own figure from their latest completed run of that lab on this
// machine, with a line saying where it came from; with no such run, the fallback and how to
// get the real figure. A card's figures of one lab all come from one run (or are all
// fallbacks). Only a run of the lab as written counts: the card's question states
// the lab's workload and engine ("256 requests in one burst, 16 admitted per step"), so a run
// with --set or a preset changing them answers another question; a sim run is a prediction
// and an --endpoint run measured a server (maybe a remote GPU), neither is this machine.
import type { KbDatabase } from '../store/db.ts';
import { labRunsOf, type LabRunRow } from '../store/lab-runs.ts';
import { labNames } from '../lab/lab-names.ts';
import { LabNotFoundError, loadLab } from '../lab/lab-files.ts';
import { LabFileError } from '../lab/lab-file.ts';
import { formatMeasured, isSweepShapeMetric } from '../lab/metrics.ts';
import { labelList } from '../lab/checks.ts';
import type { StoredCheck as RunCheck } from '../lab/run.ts';
import { labRoots } from './location.ts';
import { formatNumber } from './calc.ts';
import type { CalcSpec, LabFigure } from '../model/knowledge-base.ts';

interface StoredPoint {
  label: string | null;
  metrics?: Record<string, number>;
}

/** A stored expectation's outcome, as much as a card says of it (`at` is absent in runs stored before it). */
type StoredCheck = Pick<RunCheck, 'metric' | 'op' | 'value' | 'say' | 'measured' | 'pass'> & { at?: string | null };

interface StoredResult {
  verdict?: string;
  points?: StoredPoint[];
  sweepMetrics?: Record<string, number>;
  checks?: StoredCheck[];
}

/**
 * What a card's back says when the run its figures come from did not reproduce the lab: the
 * expectations that failed, as the lab's report words them. "did not show this — why?" said
 * neither which (the card asks one thing, the lab checks others) nor, for an older run than
 * the last, which run ("your last" was another).
 */
function notReproducedNote(lab: string, run: LabRunRow, now: number): string {
  const failed = ((run.result as StoredResult | null)?.checks ?? []).filter((check) => check.pass === false && check.measured !== null);
  const which = `Your ${lab} run #${run.id} (${ago(now - run.startedAt)}), which these figures come from, did not reproduce the lab`;
  if (failed.length === 0) return `${which}'s expectations. Why?`;
  const said = failed.map((check) => {
    const where = check.at && !check.metric.includes('@') ? ` (worst at ${check.at})` : '';
    return `${check.say} (${check.metric} = ${formatMeasured(check.metric, check.measured!)}${where}; expected ${check.op} ${check.value})`;
  });
  return `${which}: ${said.join(' and ')} did not hold. Why?`;
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
  /** The sweep points the run ran (fewer than the lab's with --points). */
  sweep?: { labels?: string[] } | null;
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

/** The lab file's sweep points, to tell a run narrowed by --points; null for no sweep or a lab that does not load. */
function labSweepLabels(root: string, lab: string): readonly string[] | null {
  try {
    return loadLab(labRoots(root), lab).sweep?.labels ?? null;
  } catch (error) {
    if (error instanceof LabFileError || error instanceof LabNotFoundError) return null;
    throw error;
  }
}

/**
 * Why `run` cannot give `metric`, or null when it can. A sweep-wide figure drawn from the
 * curve's shape (fit, knee, SLO limit) needs every point: over the points `--points` kept it
 * describes another curve, which the run's own report refused to judge.
 */
function lacks(run: LabRunRow, metric: string, sweepLabels: readonly string[] | null): string | null {
  const value = storedMetric(run.result, metric);
  if (value === undefined || !Number.isFinite(value)) return `has no ${metric}`;
  const ran = ((run.settings ?? {}) as StoredSettings).sweep?.labels;
  if (isSweepShapeMetric(metric) && sweepLabels !== null && ran && !sweepLabels.every((label) => ran.includes(label))) {
    return `ran only ${ran.length === 1 ? 'point' : 'points'} ${labelList(ran)} (--points), so its ${metric} describes another curve`;
  }
  return null;
}

/**
 * The learner's figures for the variables one card takes from one lab (`metrics`), from their
 * runs of `lab` newest first: all from one run, the newest that has every one of them, or all
 * the fallbacks. Mixed, a card asked for this machine's batch-1 rate over a typical machine's
 * rate at 32 sequences: a ratio of two machines. `sweepLabels`: the lab file's sweep points.
 */
export function labFigures(lab: string, metrics: readonly string[], runs: readonly LabRunRow[], now: number, sweepLabels: readonly string[] | null = null): LabFigure[] {
  const complete = runs.filter((r) => r.status === 'ok');
  const own = complete.filter((r) => notOwnFigure(r) === null);
  const howTo = `run kb lab ${lab} for your own figure`;
  const typical = (why: string): LabFigure[] => metrics.map(() => ({ value: null, source: `a typical figure: ${why}; ${howTo}`, notReproduced: null }));
  if (own.length === 0) {
    // Say why the newest complete run was passed over: the learner may think it counted.
    const skipped = complete[0];
    return typical(skipped ? `your last complete ${lab} (run #${skipped.id}) ${notOwnFigure(skipped)}` : `you have no complete run of ${lab} on this machine yet`);
  }
  const whyNot = (run: LabRunRow) => metrics.map((metric) => lacks(run, metric, sweepLabels)).find((why) => why !== null) ?? null;
  const newest = own[0];
  const run = own.find((r) => whyNot(r) === null);
  if (!run) return typical(`your last ${lab} (run #${newest.id}) ${whyNot(newest)}`);
  // An older run than the newest complete one: said with why that one was passed over. A newer
  // run with --set, a sim or --endpoint run counts here too: "your last ttft-breakdown (run #2)"
  // right after `kb lab ttft-breakdown --set ...` (run #3) said #2 was the last.
  const latest = complete[0];
  const source = run === latest
    ? `your last ${lab}, ${ago(now - run.startedAt)} (run #${run.id})`
    : `your ${lab} of ${ago(now - run.startedAt)} (run #${run.id}); your last, run #${latest.id}, ${notOwnFigure(latest) ?? whyNot(latest)}`;
  const verdict = (run.result as StoredResult | null)?.verdict;
  const notReproduced = verdict === 'not reproduced' ? notReproducedNote(lab, run, now) : null;
  return metrics.map((metric) => ({
    // The figure as the question prints it (4 significant digits): the answer is computed
    // from what the learner reads. From the raw measurement (2000.49 printed as 2000), a sum
    // worked from the printed figures could miss an absolute tolerance and be marked wrong.
    value: Number(formatNumber(storedMetric(run.result, metric)!)),
    source,
    notReproduced,
  }));
}

/**
 * The spec with every lab variable's figure filled in from the database (other specs as they
 * are). A lab the knowledge base at `root` does not have gets the fallback, saying so: it was
 * told to run `kb lab <name>`, which then failed (kb scan warns about such a link too).
 */
export function withLabFigures(spec: CalcSpec | null, db: KbDatabase, now: number, root: string): CalcSpec | null {
  if (spec === null || !spec.vars.some((v) => v.kind === 'lab')) return spec;
  const labs = new Set(labNames(labRoots(root)));
  // Each lab's variables of this card resolved together, so that they share one run.
  const figures = new Map<string, LabFigure[]>();
  for (const lab of new Set(spec.vars.flatMap((v) => (v.kind === 'lab' && labs.has(v.lab) ? [v.lab] : [])))) {
    const metrics = spec.vars.flatMap((v) => (v.kind === 'lab' && v.lab === lab ? [v.metric] : []));
    figures.set(lab, labFigures(lab, metrics, labRunsOf(db, lab), now, labSweepLabels(root, lab)));
  }
  const vars = spec.vars.map((variable) => {
    if (variable.kind !== 'lab') return variable;
    const own = figures.get(variable.lab);
    if (!own) {
      return { ...variable, figure: { value: null, source: `a typical figure: there is no lab named ${variable.lab} (kb lab lists them)`, notReproduced: null } };
    }
    return { ...variable, figure: own.shift()! };
  });
  return { ...spec, vars };
}
