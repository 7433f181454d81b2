// `kb lab history <name>`: a lab's stored runs, newest first, with the metrics its checks
// use, and what changed between the last two finished runs (settings and those metrics).
import stringWidth from 'string-width';
import type { LabRunRow } from '../store/lab-runs.ts';
import { formatMetric, isLabMetric, isSweepMetric, isSweepShapeMetric } from './metrics.ts';
import { labelList } from './checks.ts';
import { formatSettingValue, getSetting, reportedSettings, serverOwnedKey, simulatedRun, settingSpecs, type LabSettings, type SettingValue } from './lab-settings.ts';
import type { StoredCheck } from './run.ts';
import { localMinuteLabel } from '../srs/study-day.ts';
import { meaningLines, sweepFigures, sweepSentences, sweptPointsText, sweepWordRows, type SweptRun } from './sweep-summary.ts';

export interface StoredSettings {
  settings?: unknown;
  changed?: Array<{ key: string; value: SettingValue }>;
  sweep?: { key: string; labels: string[] } | null;
  /** A run against a server (--endpoint): where, which model, and the client's own cap. */
  endpoint?: { url?: string; model?: string; maxConcurrency?: number | null } | null;
}
export interface StoredResult {
  verdict?: string;
  note?: string | null;
  points?: Array<{ label: string | null; partial: boolean; metrics: Record<string, number> }>;
  sweepMetrics?: Record<string, number>;
  chart?: SweptRun['chart'];
  checks?: StoredCheck[];
}

/**
 * A stored run's verdict as --json gives it (kb lab <name> --json, history, compare, list):
 * "no expectations" for a lab that states none, also for runs stored before that verdict
 * existed (they say "reproduced" in their result); null for a run not finished.
 */
export function storedVerdictJson(result: unknown): string | null {
  const stored = (result ?? {}) as StoredResult;
  if (typeof stored.verdict !== 'string') return null;
  return Array.isArray(stored.checks) && stored.checks.length === 0 ? 'no expectations' : stored.verdict;
}

/**
 * A stored run's verdict, or null where there is none to show: a lab that states no
 * expectations is neither reproduced nor missed by a run (kb lab list said "reproduced").
 */
export function storedVerdict(result: unknown): string | null {
  const verdict = storedVerdictJson(result);
  return verdict === 'no expectations' ? null : verdict;
}

/** Metrics worth showing for a run: those its checks and chart name, then TTFT p99 and throughput. */
export function shownMetrics(result: StoredResult): string[] {
  const named = (result.checks ?? []).flatMap((check) => check.metric.split('/').map((term) => term.trim().split('@')[0]));
  return [...new Set([...named, ...(result.chart?.series ?? []), 'ttft.p99', 'throughput.output_tps'])].filter((name) => isLabMetric(name) && !isSweepMetric(name));
}

/** What every comparison of two runs shows beside its checks' metrics: the request-side headline figures. */
const HEADLINE_METRICS = ['ttft.p50', 'ttft.p99', 'tpot.p50', 'itl.p99', 'latency.p99', 'throughput.output_tps'];

/** The metrics two runs are compared on: the checks' and chart's, then the headline figures (an exercise asks about TPOT and latency too). */
export function comparedMetrics(result: StoredResult): string[] {
  return [...new Set([...shownMetrics(result), ...HEADLINE_METRICS])];
}

/** The sweep-wide metrics a run's checks name (fit, knee, SLO, probe). */
export function shownSweepMetrics(result: StoredResult): string[] {
  const named = (result.checks ?? []).flatMap((check) => check.metric.split('/').map((term) => term.trim().split('@')[0]));
  return [...new Set([...named, ...Object.keys(result.sweepMetrics ?? {})])].filter((name) => isSweepMetric(name) && result.sweepMetrics?.[name] !== undefined);
}

/** What sweep-summary.ts reads of a stored run: the swept key, the sweep-wide metrics and the chart's points, knee and SLO. */
export function sweptRun(run: LabRunRow): SweptRun {
  const result = (run.result ?? {}) as StoredResult;
  return { sweepKey: (run.settings as StoredSettings | null)?.sweep?.key ?? null, sweepMetrics: result.sweepMetrics ?? {}, chart: result.chart ?? null };
}

/**
 * Why two sweeps' fit, knee and SLO limit are not compared, or null when they are: each
 * describes the curve its run measured, so a run narrowed by --points or cut short measured
 * another (history read "fit.exponent 0.796 -> 0.615 (-23%)" between a whole ttft-vs-length
 * and one of two points), and its own report judged none of them.
 */
export function shapesNotCompared(a: LabRunRow, b: LabRunRow): string | null {
  const cut = [a, b].find((run) => run.status !== 'ok');
  if (cut) return `#${cut.id} was ${cut.status === 'partial' ? 'interrupted' : 'not completed'}`;
  const labels = (run: LabRunRow) => (run.settings as StoredSettings | null)?.sweep?.labels ?? [];
  const [la, lb] = [labels(a), labels(b)];
  if (la.length === lb.length && la.every((label) => lb.includes(label))) return null;
  return `#${a.id} measured points ${labelList(la)}, #${b.id} points ${labelList(lb)}`;
}

/** The line saying so, for `kb lab history` and `kb lab compare`. */
export function shapesNotComparedLine(why: string): string {
  return `  not compared: the fit, knee and SLO limit (${why})`;
}

/** The metrics of a single-run lab's run, or null for a sweep or a run that measured nothing. */
function singleMetrics(result: StoredResult): Record<string, number> | null {
  const points = result.points ?? [];
  // An interrupted single run's figures cover only the requests that finished before the stop.
  return points.length === 1 && points[0].label === null && !points[0].partial ? points[0].metrics : null;
}

/**
 * A single-run lab's figures worth showing (its checks' and chart's metrics, then TTFT p99 and
 * throughput), in that order; none for a sweep, an interrupted run or one that measured nothing.
 * One run is enough: kb lab history and a card's lab line and panel show them for any run,
 * not only where two runs are compared.
 */
export function singleRunFigures(result: StoredResult): Array<{ metric: string; value: number }> {
  const metrics = singleMetrics(result);
  if (!metrics) return [];
  return shownMetrics(result)
    .filter((metric) => metrics[metric] !== undefined)
    .map((metric) => ({ metric, value: metrics[metric] }));
}

/** A run with at least one point measured to its end: one that can be compared with another. */
function measuredToTheEnd(run: LabRunRow): boolean {
  return run.finishedAt !== null && run.status !== 'failed' && ((run.result as StoredResult | null)?.points ?? []).some((p) => !p.partial);
}

/**
 * A run's start to the minute in the learner's own time zone (it was UTC: a learner in Beijing
 * saw 10:45 for a run at 18:45).
 */
export function startedAtText(ms: number, withYear = true): string {
  return localMinuteLabel(ms, withYear);
}

/** What a run changed from its lab file ("engine.prefillMaxBatch=256 --max-concurrency 16"), or null for none. */
export function runChangesText(settings: StoredSettings): string | null {
  const changed = (settings.changed ?? []).map(({ key, value }) => `${key}=${formatSettingValue(value)}`);
  // The client's cap shapes the load a server sees as much as a --set does: two runs differing only by it looked alike.
  const cap = settings.endpoint?.maxConcurrency;
  const shown = [...changed, ...(typeof cap === 'number' ? [`--max-concurrency ${cap}`] : [])];
  return shown.length === 0 ? null : shown.join(' ');
}

function changedText(settings: StoredSettings): string {
  return runChangesText(settings) ?? 'lab settings';
}

/** A run's options that are not lab settings, as flags: the server (--endpoint) it ran against. */
function endpointOptions(settings: StoredSettings): Array<[string, string]> {
  const endpoint = settings.endpoint;
  return [
    ['--endpoint', endpoint?.url ?? '-'],
    ['--model', endpoint?.model ?? '-'],
    ['--max-concurrency', typeof endpoint?.maxConcurrency === 'number' ? String(endpoint.maxConcurrency) : 'none'],
  ];
}

export function percentChange(before: number, after: number): string {
  if (before === 0) return after === 0 ? '±0%' : 'new';
  const change = ((after - before) / Math.abs(before)) * 100;
  return `${change >= 0 ? '+' : ''}${change.toFixed(Math.abs(change) < 10 ? 1 : 0)}%`;
}

export function settingsChanges(a: StoredSettings, b: StoredSettings): string[] {
  // Full settings are stored with every run; compare them key by key.
  const before = a.settings as LabSettings | undefined;
  const after = b.settings as LabSettings | undefined;
  if (!before || !after) return [];
  // The device is the sim's: two runs that neither simulated differ in nothing it decides.
  const simulated = (settings: LabSettings, endpoint: StoredSettings['endpoint']) => simulatedRun(settings, Boolean(endpoint));
  const text = (settings: LabSettings, key: string, endpoint: StoredSettings['endpoint']) => {
    // A run against a server stores the lab file's engine, model and backend, which never ran
    // there: compared with a local run, it read "backend: sim -> cpu", "device: seed-003-gpu -> A100-40GB".
    if (endpoint && serverOwnedKey(key)) return 'set by the server';
    // A run on a real backend stores the default device, which modelled nothing: beside a sim
    // run it read "device: A100-40GB -> cpu-gpt2-tiny", as if the cpu run had been an A100's.
    if (key === 'device' && !simulated(settings, endpoint)) return 'not simulated';
    try {
      return formatSettingValue(getSetting(settings, key));
    } catch {
      return '-'; // a key added after the run was stored
    }
  };
  // With a server on either side, its engine is summed up by backend and model (one line each,
  // "sim -> set by the server"), not a line for every engine.* key and the profiling flag.
  const served = Boolean(a.endpoint) || Boolean(b.endpoint);
  const shown = (key: string) =>
    key === 'device' ? simulated(before, a.endpoint) || simulated(after, b.endpoint) : !served || key === 'backend' || key === 'model' || !serverOwnedKey(key);
  const changes = settingSpecs
    .map((spec) => spec.key)
    .filter((key) => shown(key) && text(before, key, a.endpoint) !== text(after, key, b.endpoint))
    .map((key) => `${key}: ${text(before, key, a.endpoint)} -> ${text(after, key, b.endpoint)}`);
  // Runs against a server (--endpoint) also differ by its URL, model and the client's cap.
  if (!a.endpoint && !b.endpoint) return changes;
  const optionsB = new Map(endpointOptions(b));
  const options = endpointOptions(a)
    .filter(([flag, value]) => optionsB.get(flag) !== value)
    .map(([flag, value]) => `${flag}: ${value} -> ${optionsB.get(flag)}`);
  return [...changes, ...options];
}

/**
 * The compared metrics, with the count of failed requests where either side had some: a run
 * whose requests were mostly refused (HTTP 429) compared as a faster one, the failures unsaid.
 */
export function withFailedRequests(names: readonly string[], ...metrics: Array<Record<string, number> | undefined>): string[] {
  const failed = metrics.some((m) => (m?.requests_failed ?? 0) > 0);
  return failed ? [...new Set([...names, 'requests_failed'])] : [...names];
}

/** "queue_wait.p99 512.3 ms -> 3.1 ms (-99%)" for each shown metric of two single runs. */
export function compareRuns(older: LabRunRow, newer: LabRunRow): string[] {
  const a = older.result as StoredResult;
  const b = newer.result as StoredResult;
  // Metric rows keep their name apart until the end, so that every row's values start in one column.
  const lines: (string | { indent: string; name: string; text: string })[] = settingsChanges(older.settings as StoredSettings, newer.settings as StoredSettings).map(
    (line) => `  setting ${line}`,
  );
  const ma = singleMetrics(a);
  const mb = singleMetrics(b);
  const shown = new Set<string>();
  const change = (name: string, before: number | undefined, after: number | undefined, indent = '  ') => {
    if (before === undefined || after === undefined) return;
    lines.push({ indent, name, text: `${formatMetric(name, before)} -> ${formatMetric(name, after)} (${percentChange(before, after)})` });
    shown.add(name);
  };
  if (ma && mb) {
    for (const name of withFailedRequests(comparedMetrics(b), ma, mb)) change(name, ma[name], mb[name]);
  } else {
    // Sweeps: the points both runs measured, then the sweep-wide metrics.
    const pointsA = new Map((a.points ?? []).filter((p) => !p.partial).map((p) => [p.label, p.metrics]));
    for (const point of (b.points ?? []).filter((p) => !p.partial)) {
      const before = pointsA.get(point.label);
      if (!before) continue;
      lines.push(`  at ${point.label}:`);
      for (const name of withFailedRequests(comparedMetrics(b), before, point.metrics)) change(name, before[name], point.metrics[name], '    ');
    }
    const why = shapesNotCompared(older, newer);
    for (const name of sweepFigures(shownSweepMetrics(b))) if (why === null || !isSweepShapeMetric(name)) change(name, a.sweepMetrics?.[name], b.sweepMetrics?.[name]);
    // The knee and the SLO as the swept values they fall at (knee.index 1.00 -> 1.00 read as a measurement).
    for (const row of sweepWordRows(sweptRun(older), sweptRun(newer), why === null)) {
      const percent = row.values ? ` (${percentChange(...row.values)})` : '';
      lines.push({ indent: '  ', name: row.name, text: `${row.a ?? '-'} -> ${row.b ?? '-'}${percent}` });
    }
    if (why !== null && [a, b].some((r) => Object.keys(r.sweepMetrics ?? {}).some(isSweepShapeMetric))) lines.push(shapesNotComparedLine(why));
  }
  lines.push(...meaningLines(shown));
  if (a.verdict !== b.verdict) lines.push(`  verdict: ${a.verdict ?? older.status} -> ${b.verdict ?? newer.status}`);
  const width = Math.max(24, ...lines.map((line) => (typeof line === 'string' ? 0 : line.name.length + 1)));
  return lines.map((line) => (typeof line === 'string' ? line : `${line.indent}${line.name.padEnd(width)} ${line.text}`));
}

/** The backend, or for a run against a server (--endpoint) its URL, model and version. */
export function ranOn(run: LabRunRow): string {
  return run.backend === 'endpoint' && run.device ? `endpoint ${run.device}` : run.backend;
}

function statusOf(run: LabRunRow): string {
  // Still running, or its kb was killed (a closed terminal): nothing was stored after its start.
  return run.finishedAt === null ? 'unfinished' : run.status;
}

function verdictOf(run: LabRunRow): string {
  // A run that failed measured nothing: there is no verdict to give, "incomplete" would suggest a partial one.
  if (run.status === 'failed') return '-';
  return storedVerdict(run.result) ?? '-';
}

/** Column widths for runLine: each as wide as its widest value among `runs` (fixed widths pushed every line past 80 columns, where the list lost its columns). */
function runColumns(runs: readonly LabRunRow[], withLab: boolean): { id: number; year: boolean; lab: number | null; status: number; verdict: number } {
  const widest = (values: string[]) => Math.max(0, ...values.map((value) => value.length));
  const thisYear = new Date().getFullYear();
  return {
    // The list of every lab has a column more: it leaves out the year when every run is from this one.
    year: !withLab || runs.some((run) => new Date(run.startedAt).getFullYear() !== thisYear),
    id: widest(runs.map((run) => `#${run.id}`)),
    lab: withLab ? widest(runs.map((run) => run.lab)) : null,
    status: widest(runs.map(statusOf)),
    verdict: widest(runs.map(verdictOf)),
  };
}

/** Where a run's lines below its first start: the metrics, and settings that did not fit beside it. */
const DETAIL_INDENT = '        ';

/**
 * One run's first line: id, start, status, verdict, backend (and the lab, in a list of every
 * lab), in columns; then what was changed, on that line where it fits `width`, else on the
 * next. (Wrapped with the rest, a line a little too long lost its columns.)
 */
function runLines(run: LabRunRow, columns: ReturnType<typeof runColumns>, width: number): string[] {
  const lab = columns.lab === null ? '' : `${run.lab.padEnd(columns.lab)}  `;
  const changed = changedText(run.settings as StoredSettings);
  const head = `  ${`#${run.id}`.padEnd(columns.id)}  ${startedAtText(run.startedAt, columns.year)}  ${lab}${statusOf(run).padEnd(columns.status)}  ${verdictOf(run).padEnd(columns.verdict)}  `;
  const line = `${head}${ranOn(run)}  ${changed}`;
  if (stringWidth(line) <= width) return [line];
  // A server's URL, model and version go below with the settings.
  const endpoint = run.backend === 'endpoint' && run.device;
  return endpoint ? [`${head}endpoint`, `${DETAIL_INDENT}${run.device}  ${changed}`] : [`${head}${ranOn(run)}`, `${DETAIL_INDENT}${changed}`];
}

/** `kb lab history` without a name: the latest runs of every lab, one line each (two where `width` is short). */
export function allHistoryText(runs: readonly LabRunRow[], width = Infinity): string {
  if (runs.length === 0) return 'No lab runs yet. Labs: kb lab list   Run one: kb lab <name>\n';
  const columns = runColumns(runs, true);
  return [
    'Runs of every lab, newest first:',
    ...runs.flatMap((run) => runLines(run, columns, width)),
    '',
    "One lab's runs, their metrics and what changed: kb lab history <name>",
    '',
  ].join('\n');
}

export function historyText(name: string, title: string | null, runs: readonly LabRunRow[], width = Infinity): string {
  const out: string[] = [`Runs of lab ${name}${title ? ` (${title})` : ''}, newest first:`];
  if (runs.length === 0) out.push('  none yet; run it: kb lab ' + name);
  const columns = runColumns(runs, false);
  for (const run of runs) {
    const result = (run.result ?? {}) as StoredResult;
    out.push(...runLines(run, columns, width));
    const figures = singleRunFigures(result);
    if (figures.length > 0) {
      out.push(`${DETAIL_INDENT}${figures.map(({ metric, value }) => `${metric} ${formatMetric(metric, value)}`).join(' · ')}`);
    } else if ((result.points ?? []).length > 1) {
      const swept = sweptRun(run);
      out.push(`${DETAIL_INDENT}${sweptPointsText(swept, (result.points ?? []).map((p) => p.label ?? '-'))}`);
      // The knee and the SLO in words, at the swept value they fall at; the rest as figures.
      out.push(...sweepSentences(swept).map((line) => `${DETAIL_INDENT}${line}`));
      const figures = sweepFigures(shownSweepMetrics(result));
      if (figures.length > 0) out.push(`${DETAIL_INDENT}${figures.map((m) => `${m} ${formatMetric(m, result.sweepMetrics![m])}`).join(' · ')}`);
    }
    if (result.note) out.push(`${DETAIL_INDENT}${result.note}`);
  }
  const finished = runs.filter(measuredToTheEnd);
  if (finished.length >= 2) {
    const [newer, older] = finished;
    const lines = compareRuns(older, newer);
    // Newer runs that stopped short are passed over: the heading says so (it read as if #12 and
    // #13 were the latest with #14-#16 above them, found as a user).
    const heading = newer.id === runs[0].id ? 'Last two runs compared' : 'Last two complete runs compared';
    const skipped = runs.findIndex((run) => run.id === newer.id);
    const note = skipped > 0 ? `; ${skipped === 1 ? 'the newer one' : `the ${skipped} newer ones`} stopped short` : '';
    out.push('', `${heading} (#${older.id} -> #${newer.id}${note}):`, ...(lines.length > 0 ? lines : ['  no difference in settings or shown metrics']));
  }
  return `${out.join('\n')}\n`;
}

/**
 * A stored run for `--json` (history, compare), one level deep and named as `kb lab <name>
 * --json` names them: `settings` the full lab settings, `changed` what differed from the lab
 * file, `sweep` and `endpoint` beside them. The row's settings column holds all four in one
 * object; passed on as it is, it read `settings.settings.engine...`.
 */
export function storedRunJson(run: LabRunRow): Record<string, unknown> {
  const stored = (run.settings ?? {}) as StoredSettings;
  return {
    id: run.id,
    lab: run.lab,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    status: run.status,
    backend: run.backend,
    device: run.device,
    endpoint: stored.endpoint ?? null,
    verdict: storedVerdictJson(run.result),
    settings: reportedSettings(stored.settings ?? null, Boolean(stored.endpoint)),
    changed: Object.fromEntries((stored.changed ?? []).map(({ key, value }) => [key, value])),
    sweep: stored.sweep ?? null,
    result: withReportedPointSettings(run.result, Boolean(stored.endpoint)),
  };
}

/** A stored result with each sweep point's settings as reportedSettings gives them. */
function withReportedPointSettings(result: unknown, endpoint: boolean): unknown {
  const points = (result as { points?: unknown } | null)?.points;
  if (!Array.isArray(points)) return result;
  return { ...(result as object), points: points.map((point: unknown) => (point !== null && typeof point === 'object' && 'settings' in point ? { ...point, settings: reportedSettings(point.settings, endpoint) } : point)) };
}

export function historyJson(name: string | null, runs: readonly LabRunRow[]): unknown {
  return { lab: name, runs: runs.map(storedRunJson) };
}
