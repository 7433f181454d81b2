// Running a lab: settings (file + --set) -> the engine's benchmark, once or per sweep point
// -> the `expect:` checks -> one stored lab_runs row. The row is written before the engine
// starts and completed at the end, so an interrupted run (Ctrl-C) is kept, marked partial.
import type { KbDatabase } from '../store/db.ts';
import { finishLabRun, startLabRun, type LabRunStatus } from '../store/lab-runs.ts';
import { isSweepMetric, isSweepShapeMetric } from './metrics.ts';
import { evaluateChecks, labelList, POINTS_LEFT_OUT, type CheckOutcome, type MeasuredMetrics, type MetricBounds, type ServerFigures } from './checks.ts';
import { analyseSweep, type ChartData } from './analysis.ts';
import { backendUnavailable, engineProbeKernel, reportTimelines, runBenchmarkPoint, type PointHooks, type PointRun } from './engine-bridge.ts';
import type { EndpointSession } from './endpoint/run-point.ts';
import type { ServerSide } from './endpoint/measure.ts';
import { probeMachine, type MachineProbe } from './machine-probe.ts';
import type { BenchmarkReport } from '../engine/index.ts';
import type { Lab } from './lab-file.ts';
import type { LabProgress } from './progress.ts';
import { labSettings, selectPoints } from './plan.ts';
import { resolveSimDevice } from './devices/resolve-device.ts';
import { applyOverrides, diffSettings, formatSettingValue, reportedSettings, type LabSettings, type SettingOverride } from './lab-settings.ts';

export interface RunLabOptions {
  db: KbDatabase;
  lab: Lab;
  /** --set overrides (and --backend as backend=...), already parsed and range-checked. */
  overrides: readonly SettingOverride[];
  /** For a sweep: only these point labels (--points). */
  points?: readonly string[];
  signal?: AbortSignal;
  onProgress?(progress: LabProgress): void;
  /** Run the workload against this server (--endpoint) instead of the bundled engine. */
  endpoint?: EndpointSession;
  /** Keep each engine step's shape and time in the points' reports (not stored): what `--compare` checks the sim's step costs against. */
  traceSteps?: boolean;
  /**
   * true as a point's bundled engine starts, false once it has: an abort waits for the start
   * to end (webgpu compiles every kernel first, minutes with a cold shader cache), so `kb lab`
   * says so at Ctrl-C. Never called for --endpoint.
   */
  onEngineStarting?(starting: boolean): void;
}

/** Where a run's requests went, when not to the bundled engine. */
export interface EndpointOfRun {
  url: string;
  model: string;
  serverVersion: string | null;
  maxConcurrency: number | null;
}

type PointRunner = (settings: LabSettings, hooks: PointHooks) => Promise<Omit<PointRun, 'report'> & { report: unknown }>;

export interface LabPointResult {
  /** The swept value as text, or null for a single-run lab. */
  label: string | null;
  settings: LabSettings;
  metrics: MeasuredMetrics;
  /** Metrics only known to lie in a range (an endpoint's /metrics buckets). */
  bounds?: MetricBounds;
  /** What the server measured itself (--endpoint): checks divide its figures by its own. */
  server?: ServerFigures;
  /** The engine's full benchmark report (JSON-safe). */
  report: unknown;
  /** The report as the seed-003 text table. */
  table: string;
  /** Stopped before all its requests finished (only the last point of an interrupted run). */
  partial: boolean;
}

/**
 * "no expectations": the lab states none, so a run checked nothing (it said "reproduced",
 * claiming a result nothing tested; the report and kb lab history show no verdict for it).
 */
export type LabVerdict = 'reproduced' | 'not reproduced' | 'incomplete' | 'no expectations';

export interface LabRunResult {
  runId: number;
  lab: string;
  title: string;
  status: LabRunStatus;
  startedAt: number;
  finishedAt: number;
  backend: string;
  device: string | null;
  /** The settings of the run (for a sweep: before the swept key is applied). */
  settings: LabSettings;
  /** What differs from the lab file's own settings (the learner's --set). */
  changed: SettingOverride[];
  sweep: { key: string; labels: string[] } | null;
  points: LabPointResult[];
  /** A sweep's own metrics (fit, SLO, knee, probe); empty for a single run. */
  sweepMetrics: MeasuredMetrics;
  /** What the chart draws, or null when the lab has none. */
  chart: ChartData | null;
  checks: CheckOutcome[];
  verdict: LabVerdict;
  /** Why the run is partial or failed. */
  note: string | null;
  /** The server the run measured (--endpoint), or null for the bundled engine. */
  endpoint: EndpointOfRun | null;
  /**
   * Set when the run stopped because its server stopped answering (--endpoint): why, in one
   * line (also its note). A fault of the setup, not of the lab: `kb lab` says it and exits 1.
   */
  serverGone?: string;
}

export function verdictOf(checks: readonly { pass: boolean | null }[], status: LabRunStatus): LabVerdict {
  // Whatever the run's status (that is its own field), a lab without expectations has nothing to judge.
  if (checks.length === 0) return 'no expectations';
  if (status !== 'ok') return 'incomplete';
  // A known failure decides it: whatever an unjudged expectation would show, not all of them hold.
  if (checks.some((c) => c.pass === false)) return 'not reproduced';
  return checks.some((c) => c.pass === null) ? 'incomplete' : 'reproduced';
}

/**
 * "60 of 64 measured requests failed: the figures and expectations are those of the 4 that
 * succeeded" (for a sweep, per point that had failures), or null when none failed.
 */
export function failedRequestsNote(points: readonly Pick<LabPointResult, 'label' | 'metrics'>[]): string | null {
  const failing = points.filter((p) => (p.metrics.requests_failed ?? 0) > 0);
  if (failing.length === 0) return null;
  const count = (p: (typeof failing)[number]) => `${p.metrics.requests_failed} of ${p.metrics.requests}`;
  if (failing.length === 1 && failing[0].label === null) {
    const p = failing[0];
    return `${count(p)} measured requests failed: the figures and expectations are those of the ${p.metrics.requests - p.metrics.requests_failed} that succeeded`;
  }
  return `measured requests failed at ${failing.map((p) => `${p.label} (${count(p)})`).join(', ')}: those points' figures are those of the requests that succeeded`;
}

/**
 * Runs a lab to the end (or until `signal` aborts) and stores it. Once its row exists, the
 * row is always completed: ok, partial (aborted) or failed (the engine threw; rethrown).
 */
export async function runLab(options: RunLabOptions): Promise<LabRunResult> {
  const { db, lab, signal } = options;
  const settings = labSettings(lab, options.overrides, { serverOwnsEngine: options.endpoint !== undefined });
  const planned = selectPoints(lab, settings, options.points);
  const changed = diffSettings(lab.settings, settings);
  // A sim device named by a profile is resolved now: an unknown one is refused before the run is stored.
  const simDevices = planned.map((point) => (point.settings.backend === 'sim' ? resolveSimDevice(point.settings.device, point.settings.model).spec : undefined));
  // A backend that cannot run here (webgpu without a Vulkan driver) is refused before the run
  // is stored: it was stored as failed, a run that measured nothing, for the machine's setup.
  if (!options.endpoint) {
    const unavailable = [...new Set(planned.map((point) => point.settings.backend))].map(backendUnavailable).find((why) => why !== null);
    if (unavailable) throw new Error(unavailable);
  }
  const startedAt = Date.now();
  const clockStart = performance.now();
  const session = options.endpoint;
  const endpoint: EndpointOfRun | null = session
    ? { url: session.target.shown, model: session.server.model, serverVersion: session.server.version, maxConcurrency: session.maxConcurrency }
    : null;
  // Loaded only for --endpoint: a run on the bundled engine takes the path it always took.
  const client = session ? await import('./endpoint/run-point.ts') : null;
  // One watch over the whole run: a server gone in a sweep's third point stops the sweep there.
  const watch = session && client ? new client.ServerWatch(session.target) : null;
  const runPoint: PointRunner =
    session && client && watch
      ? (s, hooks) => client.runEndpointPoint(session, s, hooks, watch)
      : async (s, hooks) => {
          options.onEngineStarting?.(true);
          try {
            return await runBenchmarkPoint(s, { ...hooks, onEngineStarted: () => options.onEngineStarting?.(false) });
          } finally {
            options.onEngineStarting?.(false);
          }
        };
  const storedSettings = {
    settings,
    changed,
    sweep: lab.sweep ? { key: lab.sweep.key, labels: planned.flatMap((p) => (p.label === null ? [] : [p.label])) } : null,
    ...(endpoint ? { endpoint } : {}),
  };
  const runId = startLabRun(db, {
    lab: lab.name,
    startedAt,
    settings: storedSettings,
    backend: session ? 'endpoint' : settings.backend,
    ...(session && client ? { device: client.endpointDescription(session) } : {}),
  });

  const points: LabPointResult[] = [];
  let device: string | null = null;
  let status: LabRunStatus = 'ok';
  let note: string | null = null;
  let failure: unknown = null;
  let capacity: number | null = null;
  let capacityFailures: string | null = null;
  let serverGone: string | null = null;
  // The server stopped answering (--endpoint): the point in progress is dropped, those before
  // it kept, and the run stored as partial with the cause as its note (not as failed: what was
  // measured before holds).
  const stoppedBy = (error: unknown): boolean => {
    if (!(error instanceof Error) || error.name !== 'ServerGoneError') return false;
    status = 'partial';
    note = serverGone = error.message;
    return true;
  };
  // The roofline compares with this machine's figures, so they are taken next to the points:
  // once the first point has shown the backend that runs is the cpu (`auto` may pick a GPU).
  let probe: MachineProbe | null = null;
  let backend: string = session ? 'endpoint' : settings.backend;

  if (lab.sweep?.relativeTo === 'capacity' && !signal?.aborted) {
    try {
      const measuredCapacity = await measureCapacity(runPoint, settings, {
        signal,
        simDevice: settings.backend === 'sim' ? resolveSimDevice(settings.device, settings.model).spec : undefined,
        onProgress: (p) => options.onProgress?.({ ...p, point: 'capacity', pointIndex: 0, points: planned.length, elapsedMs: performance.now() - clockStart }),
      });
      capacity = measuredCapacity?.rate ?? null;
      // Its burst refused in part (HTTP 429 from a server's waiting limit), the capacity is
      // that of the requests let in, and every point's rate follows from it: said in the note.
      if (measuredCapacity && measuredCapacity.failed > 0) {
        capacityFailures = `${measuredCapacity.failed} of ${measuredCapacity.requests} requests of the capacity burst failed: the capacity (${measuredCapacity.rate.toPrecision(3)} req/s), and each point's rate, is that of the ones that succeeded`;
      }
    } catch (error) {
      if (!stoppedBy(error)) {
        status = 'failed';
        note = error instanceof Error ? error.message : String(error);
        failure = error;
      }
    }
    if (capacity !== null) {
      // Each point's rate becomes its multiple of what this machine achieves now.
      for (const point of planned) point.settings = applyOverrides(point.settings, [{ key: 'workload.rate', value: Number(point.label) * capacity }]);
    } else if (failure === null && serverGone === null) {
      status = 'partial';
      note = 'interrupted while measuring the capacity';
    }
  }

  // Progress names the swept setting with each point's label: "prefixCaching=true", not "point true".
  const sweepKey = lab.sweep ? { sweepKey: lab.sweep.key } : {};
  for (const [pointIndex, point] of planned.entries()) {
    if (signal?.aborted || status !== 'ok') break;
    // Show the bar before the first request finishes (that can take a while on the cpu).
    options.onProgress?.({
      point: point.label,
      ...sweepKey,
      pointIndex,
      points: planned.length,
      phase: point.settings.warmup > 0 ? 'warmup' : 'measure',
      run: 1,
      runs: point.settings.warmup > 0 ? point.settings.warmup : point.settings.repeats,
      requestsDone: 0,
      requestsTotal: point.settings.workload.requests,
      elapsedMs: performance.now() - clockStart,
    });
    let run: Awaited<ReturnType<PointRunner>>;
    try {
      run = await runPoint(point.settings, {
        signal,
        simDevice: simDevices[pointIndex],
        traceSteps: options.traceSteps,
        onProgress: (p) =>
          options.onProgress?.({ ...p, point: point.label, ...sweepKey, pointIndex, points: planned.length, elapsedMs: performance.now() - clockStart }),
      });
    } catch (error) {
      if (stoppedBy(error)) break;
      status = 'failed';
      note = error instanceof Error ? error.message : String(error);
      failure = error;
      break;
    }
    device = run.device;
    backend = run.backend ?? backend;
    if (lab.chart?.roofline && probe === null && run.backend === 'cpu' && !signal?.aborted) probe = probeMachine(await engineProbeKernel());
    if (run.report !== null) {
      points.push({ label: point.label, settings: point.settings, metrics: run.metrics, ...(run.bounds ? { bounds: run.bounds } : {}), ...(run.server ? { server: run.server } : {}), report: run.report, table: run.table, partial: !run.completed });
    }
    if (!run.completed) break;
  }
  if (status === 'ok' && capacity === null && lab.sweep?.relativeTo === 'capacity') status = 'partial';
  // No point at all: stopped before any request finished (in warm-up, or before the first
  // request was done). Said as such, not as a measurement that stopped short.
  const nothingMeasured = points.length === 0;
  if (status === 'ok' && (signal?.aborted || points.length < planned.length || points.some((p) => p.partial))) {
    status = 'partial';
    // A sweep stopped before its first request finished is said as a single run's is (the
    // README's words), not as "0 of 2 points completed", which reads as a count of results.
    note = nothingMeasured
      ? 'interrupted before any request finished: nothing was measured'
      : lab.sweep
        ? `interrupted: ${points.filter((p) => !p.partial).length} of ${planned.length} points completed`
        : 'interrupted before every request finished';
  }

  // Requests that failed (HTTP 429 under load, a server killed mid-run) leave every figure and
  // expectation to those that succeeded: 60 of 64 refused read as an "ok" run with a fast TTFT,
  // in the report's verdict, in history and in compare. The note says so wherever the run shows.
  for (const failed of [capacityFailures, failedRequestsNote(points)]) if (failed !== null) note = note === null ? failed : `${note}; ${failed}`;

  const complete = points.filter((p) => !p.partial && p.label !== null);
  let sweepMetrics: MeasuredMetrics = {};
  let chart: ChartData | null = null;
  if (lab.sweep && lab.chart && complete.length > 0) {
    const analysis = analyseSweep(
      lab.chart,
      lab.sweep.key,
      complete.map((p) => ({
        label: p.label!,
        ...(capacity !== null ? { x: Number(p.label) } : {}),
        settings: p.settings,
        metrics: p.metrics,
        timelines: reportTimelines(p.report as BenchmarkReport),
        usage: (p.report as BenchmarkReport).usage,
      })),
      probe,
    );
    for (const p of complete) Object.assign(p.metrics, analysis.pointMetrics.get(p.label!));
    sweepMetrics = { ...analysis.sweep, ...(capacity !== null ? { 'load.capacity_rps': capacity } : {}) };
    if (capacity !== null) analysis.chart.xKey = `${lab.sweep.key} / capacity (${capacity.toPrecision(3)} req/s)`;
    chart = analysis.chart;
  }
  const evaluated = evaluateChecks(
    lab.expect,
    lab.sweep
      ? { single: null, points: complete.map((p) => ({ label: p.label!, metrics: p.metrics, bounds: p.bounds, server: p.server })), sweep: sweepMetrics }
      : { single: points[0] && !points[0].partial ? points[0].metrics : null, singleBounds: points[0]?.bounds, singleServer: points[0]?.server, points: [] },
  );
  // Checks are judged on complete measurements only; say why one was not judged. A sweep cut
  // short has fewer points than its fit, knee and limits were made for (a two-point fit gave an
  // exponent ratio of -46): its sweep-wide figures are not judged.
  const sweepCut = status === 'partial' && lab.sweep !== null && lab.sweep !== undefined;
  // Narrowed by --points, the fit, knee and SLO limit are made over the points run, which are
  // not the curve the lab's expectations describe: `--points 16,32,64,128` judged "the longer
  // half grows faster than linearly" on 64 and 128, and reported it not reproduced.
  const leftOut = lab.sweep ? lab.sweep.labels.filter((label) => !planned.some((point) => point.label === label)) : [];
  const names = (check: CheckOutcome['check']) => [check.numerator, check.denominator].flatMap((term) => (term === null ? [] : [term.metric]));
  const checks = evaluated.map((outcome) => {
    if (sweepCut && names(outcome.check).some(isSweepMetric)) {
      return { ...outcome, measured: null, pass: null, problem: 'the sweep was interrupted: its sweep-wide figures need every point' };
    }
    if (leftOut.length > 0 && names(outcome.check).some(isSweepShapeMetric)) {
      return { ...outcome, measured: null, pass: null, problem: `${POINTS_LEFT_OUT} ${labelList(leftOut)}: the sweep's fit, knee and SLO limit need every point` };
    }
    // The roofline is drawn from this CPU's probed bandwidth and FLOP/s, taken only where the
    // cpu backend ran: on webgpu or the sim the check said only "was not measured", which read
    // as a fault of the run (and the verdict's --points hint could not judge it either).
    if (outcome.pass === null && lab.chart?.roofline && probe === null && backend !== 'cpu' && !signal?.aborted && names(outcome.check).some((n) => n.startsWith('roofline.'))) {
      return { ...outcome, problem: `the roofline comes from this CPU's bandwidth and FLOP/s, probed on the cpu backend only, not on ${backend}` };
    }
    // Against a server, a metric only its /metrics or only kb's engine gives says why it is missing.
    const report = points.find((p) => !p.partial)?.report as { kind?: string; server?: ServerSide } | undefined;
    if (outcome.unmeasured && client && report?.kind === 'endpoint' && report.server) {
      const why = client.unmeasuredOnServer(outcome.unmeasured, report.server);
      if (why !== null) return { ...outcome, problem: why };
    }
    if (outcome.pass !== null || status !== 'partial') return outcome;
    if (serverGone !== null) return { ...outcome, problem: 'the run stopped: its server stopped answering' };
    return { ...outcome, problem: nothingMeasured ? 'the run was interrupted before any request finished' : 'the run was interrupted before every request finished' };
  });
  const result: LabRunResult = {
    runId,
    lab: lab.name,
    title: lab.title,
    status,
    startedAt,
    finishedAt: Date.now(),
    backend,
    device,
    settings,
    changed,
    sweep: storedSettings.sweep,
    points,
    sweepMetrics,
    chart,
    checks,
    verdict: verdictOf(checks, status),
    note,
    endpoint,
    ...(serverGone !== null ? { serverGone } : {}),
  };
  // The row was started with the backend asked for; `auto` is stored as the one it chose (kb lab
  // history and compare listed "auto", and the header said "on auto", though only cpu or webgpu runs).
  finishLabRun(db, runId, { status, finishedAt: result.finishedAt, result: storedResult(result), device, backend });
  if (failure !== null) throw failure;
  return result;
}

/** The burst a capacity-relative sweep starts with: requests/s served, and how many of its requests failed. */
interface Capacity {
  rate: number;
  failed: number;
  requests: number;
}

/**
 * Requests/s this machine sustains on the lab's workload right now: the same requests
 * submitted at once after one warm-up burst (a cold engine would make the figure err low),
 * finished requests over the time to finish them all. Null when interrupted.
 */
async function measureCapacity(runPoint: PointRunner, settings: LabSettings, hooks: PointHooks): Promise<Capacity | null> {
  const burst = applyOverrides(settings, [
    { key: 'workload.arrival', value: 'burst' },
    { key: 'warmup', value: 1 },
    { key: 'repeats', value: 1 },
  ]);
  const run = await runPoint(burst, hooks);
  const rate = run.metrics['throughput.requests_per_s'];
  return run.completed && rate !== undefined && rate > 0 ? { rate, failed: run.metrics.requests_failed ?? 0, requests: run.metrics.requests ?? 0 } : null;
}

/** What the database keeps of a run: everything but the text tables (they follow from the reports). */
export function storedResult(result: LabRunResult): unknown {
  return {
    verdict: result.verdict,
    note: result.note,
    points: result.points.map(({ label, metrics, report, partial, settings }) => ({
      label,
      partial,
      metrics,
      report: withoutTimelines(report),
      ...(label === null ? {} : { settings }),
    })),
    sweepMetrics: result.sweepMetrics,
    chart: result.chart,
    checks: result.checks.map(checkJson),
  };
}

/** A check's outcome as a run stores it (lab_runs.result.checks): the expression, what was measured, the verdict. */
export interface StoredCheck {
  metric: string;
  op: string;
  value: number;
  say: string;
  measured: number | null;
  at: string | null;
  pass: boolean | null;
  problem: string | null;
  /** A ratio's sources in a run against a server (CheckOutcome.sides); absent in runs stored before it. */
  sides?: string | null;
}

export function checkJson(c: CheckOutcome): StoredCheck {
  return { metric: c.check.text, op: c.check.op, value: c.check.value, say: c.check.say, measured: c.measured, at: c.at, pass: c.pass, problem: c.problem, sides: c.sides };
}

/** Everything about a run for `--json`, the per-request timelines included. */
export function labRunJson(result: LabRunResult): unknown {
  return {
    id: result.runId,
    lab: result.lab,
    title: result.title,
    status: result.status,
    verdict: result.verdict,
    note: result.note,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    backend: result.backend,
    device: result.device,
    endpoint: result.endpoint,
    settings: reportedSettings(result.settings, result.endpoint !== null),
    changed: Object.fromEntries(result.changed.map(({ key, value }) => [key, value])),
    sweep: result.sweep,
    points: result.points.map(({ label, settings, metrics, report, partial }) => ({ label, partial, settings: reportedSettings(settings, result.endpoint !== null), metrics, report })),
    sweepMetrics: result.sweepMetrics,
    chart: result.chart,
    checks: result.checks.map(checkJson),
  };
}

/** A report without its per-request timelines (they are for --json) and traced steps: too big to keep for every run. */
function withoutTimelines(report: unknown): unknown {
  const runs = (report as { runs?: unknown } | null)?.runs;
  if (!Array.isArray(runs)) return report;
  return { ...(report as object), runs: runs.map((run: object) => ({ ...run, timelines: undefined, steps: undefined })) };
}

/** "engine.prefillMaxBatch=256 workload.requests=32": how a run differs from its lab file. */
export function formatChanged(changed: readonly SettingOverride[]): string {
  return changed.map(({ key, value }) => `${key}=${formatSettingValue(value)}`).join(' ');
}
