// The calibration report: each fitted term with what it means physically (and the rate it
// implies, to hold against the machine's datasheet), how well the model fits each kind of
// step, a chart of the residuals, and the KV capacity the profile carries.
import { COST_TERMS, type CostTerm, type ModelConfig, NAMED_CONFIGS, type SizedSpread, spreadAt } from '../../engine/index.ts';
import { barChart } from '../chart.ts';
import { BUSY_LOAD_PER_CORE, describeSource, type DeviceProfile, poorFit } from '../devices/device-profile.ts';
import type { StoredProfile } from '../devices/profile-store.ts';
import type { Calibration } from './calibrate.ts';
import type { Residual, SizeError } from './fit.ts';

/** What one unit of a term computes, in FLOPs, so its time implies a rate; null for fixed costs. */
function flopsPerUnit(term: CostTerm, c: ModelConfig): number | null {
  switch (term) {
    case 'tokenMs':
      return 2 * 12 * c.nEmbd * c.nEmbd * c.nLayer;
    case 'attendedMs':
      return 4 * c.nEmbd * c.nLayer;
    case 'sampledMs':
      return 2 * c.nEmbd * c.vocabSize;
    default:
      return null;
  }
}

function formatMs(ms: number): string {
  if (ms === 0) return '0 ms';
  return ms >= 0.1 ? `${ms.toFixed(3)} ms` : ms >= 1e-4 ? `${(ms * 1000).toFixed(3)} µs` : `${(ms * 1e6).toFixed(3)} ns`;
}

/**
 * Each term on a line of its own (name, value, the rate it implies), its meaning on the next,
 * indented under it. As one line, an 80-column terminal wrapped the meaning back to the terms'
 * column ("  fixed per step: serving loop, ..." read as one more term).
 */
export function termLines(profile: DeviceProfile): string[] {
  const config = NAMED_CONFIGS[profile.model];
  return COST_TERMS.flatMap(({ term, unit, meaning }) => {
    const value = profile.terms[term];
    const flops = flopsPerUnit(term, config);
    const rate = flops !== null && value > 0 ? `  (≈ ${(flops / value / 1e6).toFixed(1)} GFLOP/s)` : '';
    // A term held at 0 says so on a line of its own in the meaning's column, without a colon:
    // after the meaning ("a separate prefill pass: its launches ...") the line passed 80
    // columns, and the wrap took the meaning's "...pass: " for a label and hung "held at 0"
    // under its end.
    const held = value === 0 ? ['      held at 0 (the data do not support this term)'] : [];
    return [`  ${term.padEnd(13)} ${formatMs(value).padStart(11)} per ${unit.replace(/^ms\//, '')}${rate}`, `      ${meaning}`, ...held];
  });
}

export function kvLines(profile: DeviceProfile): string[] {
  const { memoryBytes, weightBytes, reserveBytes, dtypeBytes } = profile.kv;
  const MiB = 1024 ** 2;
  const mib = (b: number) => `${(b / MiB).toFixed(1)} MiB`;
  return [`  memory ${mib(memoryBytes)} - weights ${mib(weightBytes)} - reserve ${mib(reserveBytes)} = KV ${mib(memoryBytes - weightBytes - reserveBytes)} (${dtypeBytes}-byte K/V)`];
}

const BINS = [-Infinity, -40, -20, -10, -5, 0, 5, 10, 20, 40, Infinity];

function binLabel(i: number): string {
  const lo = BINS[i];
  const hi = BINS[i + 1];
  if (lo === -Infinity) return `< ${hi}%`;
  if (hi === Infinity) return `> ${lo}%`;
  return `${lo}..${hi}%`;
}

/** How far the model is off, step by step: (predicted - measured) / measured, binned per kind. */
export function residualChart(residuals: readonly Residual[]): string[] {
  const kinds = [...new Set(residuals.map((r) => r.kind))];
  return barChart(
    kinds.map((kind) => {
      const counts = new Array<number>(BINS.length - 1).fill(0);
      for (const r of residuals.filter((x) => x.kind === kind)) {
        const pct = ((r.predictedMs - r.measuredMs) / r.measuredMs) * 100;
        counts[BINS.findIndex((lo, i) => pct >= lo && pct < BINS[i + 1])]++;
      }
      return { title: `${kind} steps: predicted vs measured`, bars: counts.map((n, i) => ({ label: binLabel(i), value: n, text: String(n) })) };
    }),
    { barWidth: 30 },
  );
}

/** The measured spread of step times around the fit, which the sim draws each step from: over all steps, then by size. */
export function spreadLines(spread: readonly number[], bySize: readonly SizedSpread[] = []): string[] {
  const at = (table: readonly number[], pct: number) => `p${pct} ${spreadAt(table, pct / 100).toFixed(2)}x`;
  const mean = spread.reduce((sum, ratio) => sum + ratio, 0) / spread.length;
  const lines = [`Spread of measured steps around the fit: ${[10, 50, 90, 99].map((pct) => at(spread, pct)).join(', ')} (mean ${mean.toFixed(2)}x)`];
  if (bySize.length < 2) return [`${lines[0]}; the sim draws each step's time from it`];
  lines.push('By size of step, what the sim draws from (a pause weighs less on a long step):');
  bySize.forEach((table, k) => {
    const next = bySize[k + 1]?.fromMs.toFixed(1);
    const range = k === 0 ? `under ${next} ms` : next !== undefined ? `${table.fromMs.toFixed(1)}-${next} ms` : `${table.fromMs.toFixed(1)} ms and over`;
    lines.push(`  ${`fitted ${range}`.padEnd(24)} ${[50, 90, 99].map((pct) => at(table.quantiles, pct)).join(', ')}`);
  });
  return lines;
}

/**
 * Decode steps by batch size, the signed median error of each range: a trend across them (big
 * batches predicted slow, small ones fast) is a cost the terms' straight line in the batch misses.
 */
export function decodeSizeLines(sizes: readonly SizeError[]): string[] {
  if (sizes.length < 2) return [];
  const signed = (pct: number) => `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
  // A short label, so that wrapped at 80 columns the figures hang under it.
  return [`    by batch: ${sizes.map((s) => `${s.label} ${signed(s.medianPct)}`).join(', ')} (median; + is predicted slower than measured)`];
}

/** A sentence when the fit is too loose to trust (a busy machine makes step times scatter), else null. */
export function poorFitWarning(fit: Calibration['fit']): string | null {
  const poor = poorFit(fit);
  if (poor === null) return null;
  const kind = poor.worstKind !== null ? `; ${poor.worstKind.kind} steps off by ${poor.worstKind.medianPct.toFixed(1)}% at the median` : '';
  return `Warning: a poor fit (R² ${fit.r2.toFixed(3)}${kind}). Something else was probably using the machine during the sweep; the sim will be off on this profile. Calibrate again when the machine is quiet.`;
}

/**
 * The once-per-request hop, in ms. The engine records a hop its clock could not see (the
 * scheduler's stamp no later than the submit's) as 0, which printed as a false-precise
 * "0.000 ms"; below 0.01 ms the figure is timer noise either way.
 */
export function submitDelayText(ms: number): string {
  return ms < 0.01 ? 'under 0.01 ms' : `${ms.toFixed(ms < 1 ? 3 : 1)} ms`;
}

/** What the saved profile replaced: a readable profile (where it came from), or a file kb could not read. */
function replacedText(replaced: StoredProfile | null): string {
  if (replaced === null) return '';
  // A broken file of the name was replaced without a word (only a readable one was said).
  return replaced.profile !== null ? ` (replacing the profile ${describeSource(replaced.profile)})` : ' (replacing a broken profile file of that name, which kb could not read)';
}

/** The machine as the sweep started; null for a profile that did not record it. */
function loadLine(profile: DeviceProfile): string | null {
  const load = profile.source.kind === 'calibrated' ? profile.source.load : undefined;
  if (!load) return null;
  const busy = load.average > BUSY_LOAD_PER_CORE * load.cores;
  // A short label: wrapped at 80 columns, the text hangs under it.
  return `Machine: load average ${load.average.toFixed(1)} on ${load.cores} cores as the sweep started${busy ? ' (other programs were running: the terms describe the machine with them; calibrate again when it is quiet for terms of the machine alone)' : ''}`;
}

export function calibrationText(result: Calibration, savedTo: string, replaced: StoredProfile | null = null): string {
  const { profile, fit, sweep } = result;
  const warning = poorFitWarning(fit);
  const load = loadLine(profile);
  const lines = [
    `Device profile "${profile.name}" for ${profile.model}: ${describeSource(profile)}`,
    // The counts add up: a step is timed by the start of the next, so each wave's last goes untimed.
    `Sweep: ${sweep.steps} steps in ${(sweep.wallMs / 1000).toFixed(1)} s; ${fit.kept + fit.outliers} timed (the last step of each wave has no next one to time it by): ${fit.kept} fitted, ${fit.outliers} set aside as disturbed (another process on the machine)`,
    ...(load !== null ? [load] : []),
    '',
    'Cost of one step = the sum of these terms:',
    ...termLines(profile),
    `And once per request: ${submitDelayText(profile.submitMs ?? 0)} from submit until the scheduler sees it (an idle engine's median queue wait)`,
    '',
    `Fit: R² ${fit.r2.toFixed(3)}`,
    ...fit.byKind.flatMap((k) => [
      `  ${k.kind.padEnd(8)} ${String(k.steps).padStart(5)} steps  median error ${k.medianPct.toFixed(1)}%  worst ${k.worstPct.toFixed(1)}%`,
      ...(k.kind === 'decode' ? decodeSizeLines(fit.decodeBySize) : []),
    ]),
    ...spreadLines(fit.spread, fit.spreadBySize),
    '',
    'Residuals:',
    ...residualChart(fit.residuals),
    '',
    'KV capacity the profile carries:',
    ...kvLines(profile),
    '',
    ...(warning !== null ? [warning, ''] : []),
    `Saved to ${savedTo}${replacedText(replaced)}`,
    // Two lines: as one, wrapped at 80 columns, "Check it" hung under the command's end.
    `Use it:   kb lab <name> --backend sim --set device=${profile.name} --set model=${profile.model}`,
    `Check it: add --compare ${profile.source.kind === 'calibrated' ? profile.source.backend : 'cpu'}`,
  ];
  return `${lines.join('\n')}\n`;
}
