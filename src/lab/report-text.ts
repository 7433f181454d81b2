// A lab run as text for the terminal: the settings line, the engine's report table (the
// layout of seed 003) for each point, then every expectation with its verdict.
import { chartLines } from './chart-view.ts';
import { labelList, pointsNotMeasured, POINTS_LEFT_OUT, type CheckOutcome } from './checks.ts';
import { formatMeasured } from './metrics.ts';
import { formatChanged, type LabRunResult } from './run.ts';
import { verdictText } from './verdict-text.ts';
import { formatSettingValue, type LabSettings } from './lab-settings.ts';

/**
 * A lab's settings in four lines. A sweep's key is shown as swept rather than with the lab
 * file's base value, which no point ran with (load-sweep's line read "poisson 10/s" above
 * points at 0.5-4x capacity). `ran`: a run's backend, which `auto` resolved.
 */
export function settingsLine(settings: LabSettings, sweptKey: string | null = null, ran: string | null = null): string {
  const e = settings.engine;
  const w = settings.workload;
  /** `text`, or "<name> swept" where `key` is the sweep's. */
  const or = (key: string, text: string, name = key.split('.')[1]) => (key === sweptKey ? `${name} swept` : text);
  const rate = or('workload.rate', `${w.rate}/s`, 'rate');
  const arrival = w.arrival === 'burst' ? 'burst' : `${w.arrival} ${rate}${w.arrival === 'gamma' ? ` (burstiness ${w.burstiness})` : ''}`;
  const lengths = `${or('workload.promptTokens', `prompt ${formatSettingValue(w.promptTokens)}`, 'prompt')} / ${or('workload.outputTokens', `output ${formatSettingValue(w.outputTokens)}`, 'output')}`;
  // "output 1 token", "1 request": the unit follows the figures shown (ttft-vs-length read "1 requests, ... output 1 tokens").
  const shownLengths = [['workload.promptTokens', w.promptTokens], ['workload.outputTokens', w.outputTokens]].filter(([key]) => key !== sweptKey).map(([, value]) => formatSettingValue(value as typeof w.promptTokens));
  const tokens = shownLengths.length > 0 && shownLengths.every((value) => value === '1') && w.maxNewTokens.max === 0 ? 'token' : 'tokens';
  // A run's line names the backend that ran: `auto` is said as what it chose.
  const backend = settings.backend === 'auto' && ran !== null && ran !== 'auto' ? `${ran} (chosen by auto)` : settings.backend;
  return [
    `${settings.model} on ${backend}${settings.backend === 'sim' ? ` (${settings.device})` : ''}`,
    `${or('workload.requests', `${w.requests} ${w.requests === 1 ? 'request' : 'requests'}`)}, ${lengths}${w.maxNewTokens.max > 0 ? ` (declared max ${formatSettingValue(w.maxNewTokens)})` : ''} ${tokens}, ${arrival}${w.sharedPrefix > 0 ? `, shared prefix ${w.sharedPrefix}` : ''}`,
    `${or('engine.policy', e.policy)}, prefillMaxBatch ${e.prefillMaxBatch}, maxNumSeqs ${e.maxNumSeqs}, maxBatchedTokens ${e.maxBatchedTokens}, ${or('engine.chunkSize', `chunk ${e.chunkSize || 'off'}`, 'chunk')}, block ${e.blockSize}, ${or('engine.kvReservation', `KV ${e.kvReservation}`, 'KV reservation')} in ${e.kvBudgetMB > 0 ? `${e.kvBudgetMB} MiB` : "the engine's default pool"}, ${or('engine.prefixCaching', `prefix cache ${e.prefixCaching ? 'on' : 'off'}`, 'prefix cache')}`,
    `warm-up ${settings.warmup}, repeats ${settings.repeats}${settings.profile ? ', kernels profiled' : ''}${settings.slo.ttftMs > 0 || settings.slo.tpotMs > 0 ? `, SLO TTFT <= ${settings.slo.ttftMs || '-'} ms, TPOT <= ${settings.slo.tpotMs || '-'} ms` : ''}`,
  ].join('\n  ');
}

/** An endpoint run's settings: the server's model and URL, the workload; the engine is the server's. */
export function endpointSettingsLine(settings: LabSettings, endpoint: NonNullable<LabRunResult['endpoint']>, sweptKey: string | null = null): string {
  const [, workload, , runs] = settingsLine(settings, sweptKey).split('\n  ');
  return [
    `${endpoint.model} at ${endpoint.url}${endpoint.serverVersion ? ` (${endpoint.serverVersion})` : ''}${endpoint.maxConcurrency !== null ? `, at most ${endpoint.maxConcurrency} requests in flight` : ''}`,
    workload,
    'engine.*: set by the server',
    runs,
  ].join('\n  ');
}

function checkLine(outcome: CheckOutcome, color: boolean): string {
  const { check } = outcome;
  const mark = outcome.pass === null ? '?' : outcome.pass ? '✓' : '✗';
  const paint = (text: string) => (!color || outcome.pass === null ? text : `\x1b[${outcome.pass ? 32 : 31}m${text}\x1b[39m`);
  // Against a server: where the ratio's figures came from (the server's clock, or both clocks mixed).
  const notes = [outcome.measured === null ? outcome.problem : null, outcome.sides].filter((note) => note !== null).join('; ');
  const value = outcome.measured === null ? '?' : formatMeasured(check.text, outcome.measured);
  const measured = notes ? `${value} (${notes})` : value;
  const where = outcome.at !== null && check.numerator.at === null ? ` (worst at ${outcome.at})` : '';
  const word = outcome.pass === null ? 'not evaluated' : outcome.pass ? 'reproduced' : 'not reproduced';
  return `  ${paint(`${mark} ${check.say}`)}\n      ${check.text} = ${measured}${where}; expected ${check.op} ${check.value} — ${word}`;
}

/**
 * For a sweep narrowed by --points: the points its unjudged expectations need, and the
 * command that runs them too. (The report said only that a metric "was not measured".)
 */
function leftOutLines(result: LabRunResult): string[] {
  const ran = result.sweep?.labels ?? [];
  if (ran.length === 0) return [];
  // Points planned but cut short by an interrupt are not "left out": the note says the run stopped.
  const needed = [...new Set(result.checks.filter((c) => c.pass === null).flatMap((c) => pointsNotMeasured(c.check, ran)))];
  const others = result.changed.length > 0 || result.endpoint ? " (and this run's other options)" : '';
  // An expectation on the sweep's fit, knee or SLO limit needs every point: the whole sweep judges it.
  if (result.status === 'ok' && result.checks.some((c) => c.pass === null && c.problem?.startsWith(POINTS_LEFT_OUT))) {
    return [`  --points left out points that the sweep's fit, knee and SLO limit need. To judge them, the whole sweep${others}:`, `    kb lab ${result.lab}`];
  }
  if (needed.length === 0) return [];
  // In the sweep's order where the labels are numbers (the run keeps the lab file's order whatever --points says).
  const numeric = [...ran, ...needed].every((label) => Number.isFinite(Number(label)));
  const ordered = (labels: string[]) => (numeric ? [...labels].sort((a, b) => Number(a) - Number(b)) : labels);
  const all = ordered([...ran, ...needed]);
  return [
    `  --points left out ${labelList(ordered(needed))}, which ${needed.length === 1 ? 'an expectation above needs' : 'the expectations above need'}. To judge them${others}:`,
    `    kb lab ${result.lab} --points ${all.join(',')}`,
  ];
}

/** The whole report of a run, ready to print. */
export function labRunText(result: LabRunResult, options: { color?: boolean } = {}): string {
  const color = options.color ?? false;
  const out: string[] = [];
  out.push(`=== lab ${result.lab}: ${result.title} ===`);
  out.push(`Settings:\n  ${result.endpoint ? endpointSettingsLine(result.settings, result.endpoint, result.sweep?.key) : settingsLine(result.settings, result.sweep?.key, result.backend)}`);
  // Said once here; the engine's table under each point leaves its own Model and Backend lines out.
  if (result.device && !result.endpoint) out.push(`Backend: ${result.device}${result.settings.backend === 'sim' ? '  [virtual clock]' : ''}`);
  if (result.changed.length > 0) out.push(`Changed from the lab file: ${formatChanged(result.changed)}`);
  for (const point of result.points) {
    out.push('');
    const relative = result.sweepMetrics['load.capacity_rps'] !== undefined ? ` x capacity = ${point.settings.workload.rate.toPrecision(3)} req/s` : '';
    if (point.label !== null) out.push(`--- ${result.sweep?.key} = ${point.label}${relative}${point.partial ? ' (interrupted)' : ''} ---`);
    else if (point.partial) out.push('--- interrupted: requests finished so far ---');
    out.push(point.table.trimEnd());
  }
  out.push('');
  if (result.chart) {
    out.push(`Chart (${result.chart.series.join(', ')} by ${result.chart.xKey}):`);
    out.push(...chartLines(result.chart, { sweepKey: result.sweep?.key ?? null, sweepMetrics: result.sweepMetrics, chart: result.chart }));
    out.push('');
  }
  if (result.checks.length > 0) {
    out.push('Expectations:');
    for (const outcome of result.checks) out.push(checkLine(outcome, color));
    out.push('');
    out.push(verdictText(result.verdict, result.checks, result.status));
    out.push(...leftOutLines(result));
    if (result.changed.length > 0 && result.verdict === 'not reproduced') {
      out.push('  The expectations describe the lab file\'s own settings; with yours, a different result is the point of the exercise.');
    }
  }
  if (result.note) out.push(`Note: ${result.note}`);
  // What was stored: a run stopped before anything was measured keeps its settings and no figures.
  const stored = result.status === 'partial' && result.points.length === 0 ? 'partial: its settings, no figures' : result.status;
  // Each command on a line that holds it whole: run together, a narrow panel broke one across two.
  // Two spaces before "Past runs" make it a field of its own, which the wrap moves down whole:
  // "Run #1 stored (partial: its settings, no figures). Past runs: kb lab history" then
  // "ttft-breakdown" broke the command at 80 columns.
  out.push(`Run #${result.runId} stored (${stored}).  Past runs: kb lab history ${result.lab}`, `The exercise: kb lab show ${result.lab}`);
  return `${out.join('\n')}\n`;
}
