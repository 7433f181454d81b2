// Fits the seed-003-gpu profile (src/lab/devices/published-profiles.ts) to seed 003's
// "before" table, then checks it against the "after" table it was not fitted to. Run by hand:
//   node bench/fit-seed-003.ts
// It searches the cost terms (Nelder-Mead over their logarithms) for the smallest squared
// log error between the sim's metrics under ttft-breakdown's seed-003 preset and the table.
import { loadLab } from '../src/lab/lab-files.ts';
import { runBenchmarkPoint } from '../src/lab/engine-bridge.ts';
import { applyOverrides } from '../src/lab/lab-settings.ts';
import { profileDevice } from '../src/lab/devices/device-profile.ts';
import { seed003Profile } from '../src/lab/devices/published-profiles.ts';
import { bundledRoot } from '../src/kb/location.ts';
import type { CostTerms } from '../src/engine/backend/sim/cost-terms.ts';

/** Seed 003's published figures (ms, tokens/s). */
const BEFORE = { 'ttft.p50': 425.47, 'ttft.p99': 537.85, 'tpot.p50': 19.63, 'throughput.output_tps': 9507.13 };
const AFTER = { 'queue_wait.p99': 513.31, 'ttft.p50': 414.69, 'ttft.p99': 523.75, 'tpot.p50': 19.64, 'throughput.output_tps': 9594.75 };

const lab = loadLab([bundledRoot()], 'ttft-breakdown');
const preset = lab.presets.find((p) => p.name === 'seed-003');
if (!preset) throw new Error('lab/ttft-breakdown.md has no seed-003 preset');
const settings = applyOverrides(lab.settings, preset.overrides);

async function metricsFor(terms: CostTerms, submitMs: number) {
  const run = await runBenchmarkPoint(settings, { simDevice: profileDevice(seed003Profile(terms, submitMs)) });
  return run.metrics;
}

// The per-step terms, and submitMs: how long a request sits before the serving loop sees it.
const KEYS = ['stepMs', 'tokenMs', 'sampledMs', 'prefillPassMs'] as const;
const toTerms = (x: number[]): CostTerms => ({ stepMs: Math.exp(x[0]), tokenMs: Math.exp(x[1]), sampledMs: Math.exp(x[2]), prefillPassMs: Math.exp(x[3]), attendedMs: 0 });
const toSubmitMs = (x: number[]): number => Math.exp(x[4]);

async function loss(x: number[]): Promise<number> {
  const m = await metricsFor(toTerms(x), toSubmitMs(x));
  return Object.entries(BEFORE).reduce((sum, [k, v]) => sum + Math.log((m[k] ?? 1e-9) / v) ** 2, 0);
}

async function nelderMead(start: number[], step: number, iterations: number): Promise<number[]> {
  let simplex = [start, ...start.map((_, i) => start.map((v, j) => (i === j ? v + step : v)))];
  let values = await Promise.all(simplex.map(loss));
  for (let it = 0; it < iterations; it++) {
    const order = values.map((v, i) => i).sort((a, b) => values[a] - values[b]);
    simplex = order.map((i) => simplex[i]);
    values = order.map((i) => values[i]);
    const n = start.length;
    const centroid = start.map((_, j) => simplex.slice(0, n).reduce((s, p) => s + p[j], 0) / n);
    const along = (t: number) => centroid.map((c, j) => c + t * (simplex[n][j] - c));
    const reflected = along(-1);
    const fr = await loss(reflected);
    if (fr < values[0]) {
      const expanded = along(-2);
      const fe = await loss(expanded);
      [simplex[n], values[n]] = fe < fr ? [expanded, fe] : [reflected, fr];
    } else if (fr < values[n - 1]) {
      [simplex[n], values[n]] = [reflected, fr];
    } else {
      const contracted = along(0.5);
      const fc = await loss(contracted);
      if (fc < values[n]) [simplex[n], values[n]] = [contracted, fc];
      else {
        for (let i = 1; i <= n; i++) simplex[i] = simplex[i].map((v, j) => simplex[0][j] + 0.5 * (v - simplex[0][j]));
        values = await Promise.all(simplex.map(loss));
      }
    }
  }
  return simplex[values.indexOf(Math.min(...values))];
}

const best = await nelderMead([Math.log(10), Math.log(0.01), Math.log(0.01), Math.log(10), Math.log(100)], 1, 400);
const terms = toTerms(best);
console.log('terms', Object.fromEntries(KEYS.map((k) => [k, Number(terms[k].toPrecision(4))])), 'submitMs', Number(toSubmitMs(best).toPrecision(4)));
const m = await metricsFor(terms, toSubmitMs(best));
for (const [name, table] of [['before (fitted)', BEFORE], ['after (check)', AFTER]] as const) {
  console.log(`\n${name}:`);
  for (const [k, v] of Object.entries(table)) console.log(`  ${k.padEnd(22)} seed ${String(v).padStart(8)}  sim ${(m[k] ?? NaN).toFixed(2).padStart(8)}  ${(((m[k] ?? NaN) / v - 1) * 100).toFixed(1)}%`);
}
