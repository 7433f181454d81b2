// How far to trust the simulator on this machine: every lab run on the cpu backend and on the
// sim with a profile calibrated here, side by side in one process, and the % error of each
// headline metric (what `kb lab <name> --backend sim --set device=NAME --compare cpu` prints,
// for all the labs at once). The labs' workloads and settings are not the calibration sweep's.
//
//   . scripts/node-env.sh
//   node bench/sim-accuracy.ts [--prefix cpu] [--versus PREFIX] [--calibrate] [--rescale] [--floor] [--labs a,b]
//
// --versus predicts each lab on a second set of profiles too (<PREFIX>-<M>), against the same
// measured run: two versions of the model compared side by side, free of the machine's drift
// between two runs of this script.
//
// Each measured run's steps are traced and checked against the profile's terms (what --compare
// prints as "Step costs"): the median ratio says how much slower or faster the machine ran than
// at calibration. --rescale then predicts each lab once more on the profile with every term
// times that ratio (one figure taken from the measurement): what is left is the model's own
// error, the machine's drift taken out. The goal is the first count, not this one.
//
// --floor measures each lab a second time, right after the first, and scores that second run as
// if it were a prediction of the first: how many figures two measurements of the same lab, a
// minute apart, agree on within 15%. No model can do better than the machine repeats itself,
// so this is the ceiling the sim's count is to be read against.
//
// Profiles are per model: a lab on model M runs on the profile <prefix>-<M> (what
// `kb lab calibrate --model M` saves by default). --calibrate runs the full sweep for every
// model the labs use first (in this process, saved to the user's data folder). Prints one table per lab and, at the end, how many figures are within 15%.
// On a shared machine, step times swing with the neighbours' load: the load average is
// printed before and after, and figures taken under load are only indicative.
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { bundledRoot } from '../src/kb/location.ts';
import { calibrate } from '../src/lab/calibrate/calibrate.ts';
import { saveProfile } from '../src/lab/devices/profile-store.ts';
import { findProfile } from '../src/lab/devices/resolve-device.ts';
import { checkStepCosts, machineLoadNow, stepCostText } from '../src/lab/step-cost-check.ts';
import { COST_TERMS } from '../src/engine/index.ts';
import type { LabRunResult } from '../src/lab/run.ts';
import { listLabs, loadLab } from '../src/lab/lab-files.ts';
import { predictionRows, predictionText } from '../src/lab/prediction-check.ts';
import { runLab } from '../src/lab/run.ts';
import { openDatabase } from '../src/store/db.ts';

const { values: args } = parseArgs({
  options: {
    prefix: { type: 'string', default: 'cpu' },
    calibrate: { type: 'boolean', default: false },
    labs: { type: 'string' },
    versus: { type: 'string' },
    rescale: { type: 'boolean', default: false },
    floor: { type: 'boolean', default: false },
  },
});

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
console.log(`${new Date().toISOString()}  load ${load()}`);
const names = args.labs ? args.labs.split(',') : listLabs([bundledRoot()]).map((entry) => entry.name);
const models = [...new Set(names.map((name) => loadLab([bundledRoot()], name).settings.model))];
if (args.calibrate) {
  for (const model of models) {
    const result = await calibrate({ model, backend: 'cpu', name: `${args.prefix}-${model}`, quick: false });
    console.log(`calibrated ${result.profile.name}: R² ${result.fit.r2.toFixed(3)}, ${result.fit.byKind.map((k) => `${k.kind} median ${k.medianPct.toFixed(1)}%`).join(', ')}; saved to ${saveProfile(result.profile)}  (load ${load()})`);
  }
}
const db = openDatabase(':memory:');
const prefixes = args.versus ? [args.prefix, args.versus] : [args.prefix];
const columns = [...prefixes, ...(args.rescale ? ['rescaled'] : []), ...(args.floor ? ['measured again'] : [])];
const errors = columns.map((): number[] => []);
const summary = columns.map((): string[] => []);
const ratios: string[] = [];
for (const name of names) {
  const lab = loadLab([bundledRoot()], name);
  // Each run scored against the measured one, under its column's name.
  const sims: Array<[string, LabRunResult]> = [];
  for (const prefix of prefixes) sims.push([prefix, await runLab({ db, lab, overrides: [{ key: 'backend', value: 'sim' }, { key: 'device', value: `${prefix}-${lab.settings.model}` }] })]);
  const loadBefore = machineLoadNow();
  const measured = await runLab({ db, lab, overrides: [{ key: 'backend', value: 'cpu' }], traceSteps: true });
  const profile = findProfile(`${args.prefix}-${lab.settings.model}`);
  const check = profile ? checkStepCosts(profile, measured, loadBefore) : null;
  if (check) {
    process.stdout.write(`\n${stepCostText(check).join('\n')}\n`);
    ratios.push(`${name.padEnd(18)} steps ${check.overall.ratio.toFixed(2)}x  (${check.byKind.map((k) => `${k.label} ${k.ratio.toFixed(2)}x`).join(', ')})`);
  }
  if (args.rescale && profile && check) {
    const rescaled = `${args.prefix}-${lab.settings.model}-rescaled`;
    const terms = Object.fromEntries(COST_TERMS.map(({ term }) => [term, profile.terms[term] * check.overall.ratio]));
    // Saved only for this run: the sim finds devices by name in the data folder.
    const saved = saveProfile({ ...profile, name: rescaled, terms: terms as typeof profile.terms, submitMs: (profile.submitMs ?? 0) * check.overall.ratio });
    try {
      sims.push(['rescaled', await runLab({ db, lab, overrides: [{ key: 'backend', value: 'sim' }, { key: 'device', value: rescaled }] })]);
    } finally {
      rmSync(saved);
    }
  }
  if (args.floor) sims.push(['measured again', await runLab({ db, lab, overrides: [{ key: 'backend', value: 'cpu' }] })]);
  for (const [column, sim] of sims) {
    const k = columns.indexOf(column);
    const rows = predictionRows(sim, measured);
    process.stdout.write(`\n${columns.length > 1 ? `[${column}] ` : ''}${predictionText(sim, measured, rows)}`);
    const labErrors = rows.flatMap((r) => (r.errorPct === null ? [] : [Math.abs(r.errorPct)]));
    errors[k].push(...labErrors);
    const median = [...labErrors].sort((a, b) => a - b)[labErrors.length >> 1] ?? NaN;
    summary[k].push(`${name.padEnd(18)} ${String(labErrors.filter((e) => e <= 15).length).padStart(3)}/${String(labErrors.length).padEnd(3)} within 15%  median ${median.toFixed(1)}%  worst ${Math.max(...labErrors).toFixed(1)}%`);
  }
}
columns.forEach((column, k) => {
  const title =
    column === 'rescaled'
      ? `profiles ${args.prefix}-<model>, every term times the lab's step ratio:\n`
      : column === 'measured again'
        ? 'each lab measured a second time, scored against the first (the ceiling: how well the machine repeats itself):\n'
        : `profiles ${column}-<model>:\n`;
  console.log(`\n${columns.length > 1 ? title : ''}${summary[k].join('\n')}\nall labs: ${errors[k].filter((e) => e <= 15).length} of ${errors[k].length} figures within 15%`);
});
if (ratios.length > 0) console.log(`\nmeasured steps / ${args.prefix}-<model>'s terms (median):\n${ratios.join('\n')}`);
console.log(`(load ${load()})`);
