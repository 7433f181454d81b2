// `kb lab history <name>`: a lab's stored runs, newest first, with the metrics its checks
// use, and what changed between the last two finished runs (settings and those metrics).
import type { LabRunRow } from '../store/lab-runs.ts';
import { formatMetric, isLabMetric, isSweepMetric } from './metrics.ts';
import { formatSettingValue, getSetting, settingSpecs, type LabSettings, type SettingValue } from './lab-settings.ts';
import type { StoredCheck } from './run.ts';

export interface StoredSettings {
  settings?: unknown;
  changed?: Array<{ key: string; value: SettingValue }>;
  sweep?: { key: string; labels: string[] } | null;
}
export interface StoredResult {
  verdict?: string;
  note?: string | null;
  points?: Array<{ label: string | null; partial: boolean; metrics: Record<string, number> }>;
  sweepMetrics?: Record<string, number>;
  chart?: { series?: string[] } | null;
  checks?: StoredCheck[];
}

/** Metrics worth showing for a run: those its checks and chart name, then TTFT p99 and throughput. */
export function shownMetrics(result: StoredResult): string[] {
  const named = (result.checks ?? []).flatMap((check) => check.metric.split('/').map((term) => term.trim().split('@')[0]));
  return [...new Set([...named, ...(result.chart?.series ?? []), 'ttft.p99', 'throughput.output_tps'])].filter((name) => isLabMetric(name) && !isSweepMetric(name));
}

/** The sweep-wide metrics a run's checks name (fit, knee, SLO, probe). */
export function shownSweepMetrics(result: StoredResult): string[] {
  const named = (result.checks ?? []).flatMap((check) => check.metric.split('/').map((term) => term.trim().split('@')[0]));
  return [...new Set([...named, ...Object.keys(result.sweepMetrics ?? {})])].filter((name) => isSweepMetric(name) && result.sweepMetrics?.[name] !== undefined);
}

/** The metrics of a single-run lab's run, or null for a sweep or a run that measured nothing. */
function singleMetrics(result: StoredResult): Record<string, number> | null {
  const points = result.points ?? [];
  return points.length === 1 && points[0].label === null ? points[0].metrics : null;
}

function when(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

function changedText(settings: StoredSettings): string {
  const changed = settings.changed ?? [];
  return changed.length === 0 ? 'lab settings' : changed.map(({ key, value }) => `${key}=${formatSettingValue(value)}`).join(' ');
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
  const text = (settings: LabSettings, key: string) => {
    try {
      return formatSettingValue(getSetting(settings, key));
    } catch {
      return '-'; // a key added after the run was stored
    }
  };
  // The device is the sim's: two runs that neither simulated differ in nothing it decides.
  const simulated = before.backend === 'sim' || after.backend === 'sim';
  return settingSpecs
    .map((spec) => spec.key)
    .filter((key) => (key !== 'device' || simulated) && text(before, key) !== text(after, key))
    .map((key) => `${key}: ${text(before, key)} -> ${text(after, key)}`);
}

/** "queue_wait.p99 512.3 ms -> 3.1 ms (-99%)" for each shown metric of two single runs. */
export function compareRuns(older: LabRunRow, newer: LabRunRow): string[] {
  const a = older.result as StoredResult;
  const b = newer.result as StoredResult;
  const lines = settingsChanges(older.settings as StoredSettings, newer.settings as StoredSettings).map((line) => `  setting ${line}`);
  const ma = singleMetrics(a);
  const mb = singleMetrics(b);
  const change = (name: string, before: number | undefined, after: number | undefined, indent = '  ') => {
    if (before !== undefined && after !== undefined) lines.push(`${indent}${name.padEnd(24)} ${formatMetric(name, before)} -> ${formatMetric(name, after)} (${percentChange(before, after)})`);
  };
  if (ma && mb) {
    for (const name of shownMetrics(b)) change(name, ma[name], mb[name]);
  } else {
    // Sweeps: the points both runs measured, then the sweep-wide metrics.
    const pointsA = new Map((a.points ?? []).filter((p) => !p.partial).map((p) => [p.label, p.metrics]));
    for (const point of (b.points ?? []).filter((p) => !p.partial)) {
      const before = pointsA.get(point.label);
      if (!before) continue;
      lines.push(`  at ${point.label}:`);
      for (const name of shownMetrics(b)) change(name, before[name], point.metrics[name], '    ');
    }
    for (const name of shownSweepMetrics(b)) change(name, a.sweepMetrics?.[name], b.sweepMetrics?.[name]);
  }
  if (a.verdict !== b.verdict) lines.push(`  verdict: ${a.verdict ?? older.status} -> ${b.verdict ?? newer.status}`);
  return lines;
}

/** The backend, or for a run against a server (--endpoint) its URL, model and version. */
export function ranOn(run: LabRunRow): string {
  return run.backend === 'endpoint' && run.device ? `endpoint ${run.device}` : run.backend;
}

/** One run's first line: id, start, status, verdict, backend, what was changed (and the lab, in a list of every lab). */
function runLine(run: LabRunRow, labWidth: number | null): string {
  const result = (run.result ?? {}) as StoredResult;
  const status = run.finishedAt === null ? 'running or killed' : run.status;
  const lab = labWidth === null ? '' : `${run.lab.padEnd(labWidth)}  `;
  return `  #${run.id}  ${when(run.startedAt)}  ${lab}${status.padEnd(7)}  ${(result.verdict ?? '-').padEnd(14)}  ${ranOn(run)}  ${changedText(run.settings as StoredSettings)}`;
}

/** `kb lab history` without a name: the latest runs of every lab, one line each. */
export function allHistoryText(runs: readonly LabRunRow[]): string {
  if (runs.length === 0) return 'No lab runs yet. Labs: kb lab list   Run one: kb lab <name>\n';
  const width = Math.max(...runs.map((run) => run.lab.length));
  return [
    'Runs of every lab, newest first:',
    ...runs.map((run) => runLine(run, width)),
    '',
    "One lab's runs, their metrics and what changed between the last two: kb lab history <name>",
    '',
  ].join('\n');
}

export function historyText(name: string, title: string | null, runs: readonly LabRunRow[]): string {
  const out: string[] = [`Runs of lab ${name}${title ? ` (${title})` : ''}, newest first:`];
  if (runs.length === 0) out.push('  none yet; run it: kb lab ' + name);
  for (const run of runs) {
    const result = (run.result ?? {}) as StoredResult;
    const settings = run.settings as StoredSettings;
    out.push(runLine(run, null));
    const metrics = singleMetrics(result);
    if (metrics) {
      const shown = shownMetrics(result).filter((m) => metrics[m] !== undefined);
      out.push(`        ${shown.map((m) => `${m} ${formatMetric(m, metrics[m])}`).join(' · ')}`);
    } else if ((result.points ?? []).length > 1) {
      out.push(`        ${settings.sweep?.key ?? 'sweep'}: ${(result.points ?? []).map((p) => p.label).join(', ')}`);
      const sweepShown = shownSweepMetrics(result);
      if (sweepShown.length > 0) out.push(`        ${sweepShown.map((m) => `${m} ${formatMetric(m, result.sweepMetrics![m])}`).join(' · ')}`);
    }
    if (result.note) out.push(`        ${result.note}`);
  }
  const finished = runs.filter((run) => run.finishedAt !== null && run.status !== 'failed');
  if (finished.length >= 2) {
    const [newer, older] = finished;
    const lines = compareRuns(older, newer);
    out.push('', `Last two runs compared (#${older.id} -> #${newer.id}):`, ...(lines.length > 0 ? lines : ['  no difference in settings or shown metrics']));
  }
  return `${out.join('\n')}\n`;
}

export function historyJson(name: string | null, runs: readonly LabRunRow[]): unknown {
  return {
    lab: name,
    runs: runs.map((run) => ({
      id: run.id,
      lab: run.lab,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      status: run.status,
      backend: run.backend,
      device: run.device,
      verdict: ((run.result ?? {}) as StoredResult).verdict ?? null,
      settings: run.settings,
      result: run.result,
    })),
  };
}
