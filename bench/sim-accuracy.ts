// How far to trust the simulator on this machine: every lab run on the cpu backend and on the
// sim with a profile calibrated here, side by side in one process, and the % error of each
// headline metric (what `kb lab <name> --backend sim --set device=NAME --compare cpu` prints,
// for all the labs at once). The labs' workloads and settings are not the calibration sweep's.
//
//   . scripts/node-env.sh
//   node bench/sim-accuracy.ts [--prefix cpu] [--versus PREFIX] [--calibrate] [--labs a,b]
//
// --versus predicts each lab on a second set of profiles too (<PREFIX>-<M>), against the same
// measured run: two versions of the model compared side by side, free of the machine's drift
// between two runs of this script.
//
// Profiles are per model: a lab on model M runs on the profile <prefix>-<M> (what
// `kb lab calibrate --model M` saves by default). --calibrate runs the full sweep for every
// model the labs use first (in this process, saved to the user's data folder). Prints one table per lab and, at the end, how many figures are within 15%.
// On a shared machine, step times swing with the neighbours' load: the load average is
// printed before and after, and figures taken under load are only indicative.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { bundledRoot } from '../src/kb/location.ts';
import { calibrate } from '../src/lab/calibrate/calibrate.ts';
import { saveProfile } from '../src/lab/devices/profile-store.ts';
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
const errors = prefixes.map((): number[] => []);
const summary = prefixes.map((): string[] => []);
for (const name of names) {
  const lab = loadLab([bundledRoot()], name);
  const sims = [];
  for (const prefix of prefixes) sims.push(await runLab({ db, lab, overrides: [{ key: 'backend', value: 'sim' }, { key: 'device', value: `${prefix}-${lab.settings.model}` }] }));
  const measured = await runLab({ db, lab, overrides: [{ key: 'backend', value: 'cpu' }] });
  sims.forEach((sim, k) => {
    const rows = predictionRows(sim, measured);
    process.stdout.write(`\n${prefixes.length > 1 ? `[${prefixes[k]}] ` : ''}${predictionText(sim, measured, rows)}`);
    const labErrors = rows.flatMap((r) => (r.errorPct === null ? [] : [Math.abs(r.errorPct)]));
    errors[k].push(...labErrors);
    const median = [...labErrors].sort((a, b) => a - b)[labErrors.length >> 1] ?? NaN;
    summary[k].push(`${name.padEnd(18)} ${String(labErrors.filter((e) => e <= 15).length).padStart(3)}/${String(labErrors.length).padEnd(3)} within 15%  median ${median.toFixed(1)}%  worst ${Math.max(...labErrors).toFixed(1)}%`);
  });
}
prefixes.forEach((prefix, k) => {
  console.log(`\n${prefixes.length > 1 ? `profiles ${prefix}-<model>:\n` : ''}${summary[k].join('\n')}\nall labs: ${errors[k].filter((e) => e <= 15).length} of ${errors[k].length} figures within 15%`);
});
console.log(`(load ${load()})`);
