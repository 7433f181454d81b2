// `--compare cpu`: the same lab run on the sim and on a real backend, and for each headline
// metric what the sim predicted, what was measured, and the % error. This is how a learner
// finds out which of the simulator's numbers to trust on their own machine.
import type { DeviceProfile } from './devices/device-profile.ts';
import type { LabRunResult } from './run.ts';

/** The figures a serving benchmark leads with (DESIGN.md's metrics). */
export const HEADLINE_METRICS: readonly { metric: string; label: string; unit: string }[] = [
  { metric: 'ttft.p50', label: 'TTFT p50', unit: 'ms' },
  { metric: 'ttft.p99', label: 'TTFT p99', unit: 'ms' },
  { metric: 'tpot.p50', label: 'TPOT p50', unit: 'ms' },
  { metric: 'itl.p99', label: 'ITL p99', unit: 'ms' },
  { metric: 'throughput.output_tps', label: 'output throughput', unit: 'tok/s' },
  { metric: 'queue_wait.p99', label: 'queue wait p99', unit: 'ms' },
];

export interface PredictionRow {
  /** The sweep point's label, or null for a single-run lab. */
  point: string | null;
  metric: string;
  label: string;
  unit: string;
  predicted: number | null;
  measured: number | null;
  /** (predicted - measured) / measured in %, or null when either is missing or measured is 0. */
  errorPct: number | null;
}

/**
 * Why the measured run gives no figures to set against the sim's at a point, or null when it
 * measured the point to its end. A point an interrupt stopped holds the requests that finished
 * first, the quickest: set against the sim's whole point, it read as the sim's error.
 */
function notCompared(measured: LabRunResult, label: string | null): string | null {
  const point = measured.points.find((p) => p.label === label);
  if (!point) return measured.status === 'ok' ? null : 'the measured run stopped before it';
  if (!point.partial) return null;
  const planned = point.settings.workload.requests * point.settings.repeats;
  const finished = point.metrics.requests;
  return `the measured run was interrupted here${finished === undefined ? '' : ` (${finished} of ${planned} requests finished)`}`;
}

export function predictionRows(sim: LabRunResult, measured: LabRunResult): PredictionRow[] {
  const rows: PredictionRow[] = [];
  for (const point of sim.points) {
    const other = notCompared(measured, point.label) === null ? measured.points.find((p) => p.label === point.label) : undefined;
    for (const { metric, label, unit } of HEADLINE_METRICS) {
      const predicted = point.metrics[metric] ?? null;
      const actual = other?.metrics[metric] ?? null;
      // A measured value this small (queue wait of a lab that never queues) makes % meaningless.
      const errorPct = predicted !== null && actual !== null && Math.abs(actual) > 1e-9 ? ((predicted - actual) / actual) * 100 : null;
      rows.push({ point: point.label, metric, label, unit, predicted, measured: actual, errorPct });
    }
  }
  return rows;
}

function figure(value: number | null): string {
  if (value === null) return '—';
  return Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** Below this many requests a p99 of requests is about the slowest one. */
const FEW_REQUESTS = 100;

/** The points whose per-request p99s (TTFT, queue wait) come from few requests, with how many. */
function fewRequestPoints(measured: LabRunResult): Array<{ label: string | null; requests: number }> {
  return measured.points
    .map((point) => ({ label: point.label, requests: point.settings.workload.requests * point.settings.repeats }))
    .filter((point) => point.requests < FEW_REQUESTS);
}

/**
 * What the errors measure when the sim's device is not a profile of the measured backend (a
 * datasheet GPU, a published fit, a profile of the other backend): two machines, not the
 * simulator. Null when the device was calibrated on that backend. `own`: the profiles
 * calibrated here on `backend` for `model`, the ones to compare with instead. `before`: said
 * before the runs start (on stderr), where the comparison is still to come: said only under
 * the table, it came after minutes of gpt2 on the cpu, too late to Ctrl-C.
 */
export function foreignDeviceNote(device: string, profile: DeviceProfile | null, backend: string, model: string, own: readonly string[] = [], when: 'before' | 'after' = 'after'): string | null {
  let what: string;
  if (profile === null) what = 'is a datasheet GPU';
  else if (profile.source.kind === 'published') what = `was fitted to a published table (${profile.source.hardware})`;
  else if (profile.source.backend !== backend) what = `was calibrated on the ${profile.source.backend} backend`;
  else return null;
  // A learner who has calibrated one was told to calibrate one: name it instead.
  const check =
    own.length === 0
      ? `calibrate a profile here (kb lab calibrate --backend ${backend} --model ${model} --name NAME) and compare with --set device=NAME.`
      : `compare with ${own.length === 1 ? 'the profile' : 'a profile'} calibrated here on ${backend} for ${model}: --set device=${own[0]}${own.length > 1 ? ` (or ${own.slice(1).join(', ')})` : ''}.`;
  const errors = when === 'after' ? 'the errors above compare' : 'the errors this comparison will print compare';
  return `Device ${device} ${what}, not this ${backend} backend: ${errors} two machines, not the simulator with a measurement. To check the simulator, ${check}`;
}

export function predictionText(sim: LabRunResult, measured: LabRunResult, rows: readonly PredictionRow[], deviceNote: string | null = null, stepCostLines: readonly string[] = []): string {
  const labelWidth = Math.max(...HEADLINE_METRICS.map(({ label, unit }) => `${label} (${unit})`.length));
  const lines = [
    `=== ${sim.lab}: sim prediction vs measured run ===`,
    `Predicted: run #${sim.runId}, ${sim.device ?? sim.backend}`,
    `Measured:  run #${measured.runId}, ${measured.device ?? measured.backend}`,
  ];
  const points = [...new Set(rows.map((r) => r.point))];
  const header = `  ${'metric'.padEnd(labelWidth)} ${'predicted'.padStart(10)} ${'measured'.padStart(10)}  ${'error'.padStart(7)}`;
  const compared = points.filter((point) => notCompared(measured, point) === null);
  // A measured run stopped short: said by name, and where it compares nothing, no table of dashes.
  const stopped = measured.status === 'ok' ? null : `Measured run #${measured.runId} stopped short${measured.note ? ` (${measured.note})` : ''}`;
  if (stopped !== null && compared.length === 0) {
    lines.push('', `${stopped}, so nothing is compared.`, `Both runs are stored: kb lab compare ${sim.runId} ${measured.runId}`);
    return `${lines.join('\n')}\n`;
  }
  for (const point of points) {
    const why = notCompared(measured, point);
    const at = `  at ${sim.sweep?.key ?? 'point'}=${point}`;
    if (why !== null) {
      lines.push('', `${at}: not compared, ${why}`);
      continue;
    }
    lines.push('', point === null ? header : at, ...(point === null ? [] : [header]));
    for (const r of rows.filter((x) => x.point === point)) {
      const error = r.errorPct === null ? '—' : `${r.errorPct >= 0 ? '+' : ''}${r.errorPct.toFixed(1)}%`;
      lines.push(`  ${`${r.label} (${r.unit})`.padEnd(labelWidth)} ${figure(r.predicted).padStart(10)} ${figure(r.measured).padStart(10)}  ${error.padStart(7)}`);
    }
  }
  const errors = rows.flatMap((r) => (r.errorPct === null ? [] : [Math.abs(r.errorPct)]));
  if (errors.length > 0) {
    const within = errors.filter((e) => e <= 15).length;
    lines.push('', `${within} of ${errors.length} figures within 15%; worst ${Math.max(...errors).toFixed(1)}%.`);
  }
  const few = fewRequestPoints(measured).filter((p) => compared.includes(p.label));
  if (few.length > 0) {
    const where = few.length === compared.length ? 'here' : `at ${few.map((p) => `${sim.sweep?.key ?? 'point'}=${p.label}`).join(', ')}`;
    const counts = [...new Set(few.map((p) => p.requests))].sort((a, b) => a - b).join(', ');
    lines.push(
      // One line: printed, it is wrapped to the terminal (cli/terminal-output.ts).
      `TTFT p99 and queue wait p99 ${where} come from ${counts} request${counts === '1' ? '' : 's'}: under ${FEW_REQUESTS}, a p99 is about the slowest request, which one disturbance sets on either side. Read the p50s, TPOT and throughput first.`,
    );
  }
  // One line each: printed, they are wrapped to the terminal.
  if (deviceNote !== null) lines.push(deviceNote);
  lines.push(...stepCostLines);
  if (stopped !== null) lines.push(`${stopped}: only what it measured to the end is compared.`);
  lines.push(`Both runs are stored: kb lab compare ${sim.runId} ${measured.runId}`);
  return `${lines.join('\n')}\n`;
}
