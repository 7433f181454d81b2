// `kb lab calibrate` and `kb lab devices`: fit the sim's cost model to this machine, and list
// the devices the sim can model with where each one's numbers come from.
import type { Command } from 'commander';
import { UserError } from './errors.ts';

interface CalibrateFlags {
  backend: string;
  model: string;
  name?: string;
  quick?: boolean;
  json?: boolean;
}

export function registerCalibrate(lab: Command): void {
  lab
    .command('calibrate')
    .description(
      'profile this machine on a real backend (decode at several batch sizes and contexts, prefill chunks, mixed steps), ' +
        'fit the sim\'s cost terms, print the fit, and save a device profile usable as --set device=NAME',
    )
    .option('--backend <backend>', 'cpu or webgpu (default: cpu)')
    .option('--model <model>', 'the model to profile (profiles are per model)', 'gpt2-tiny')
    .option('--name <name>', 'the profile\'s name (default: <backend>-<model>)')
    .option('--quick', 'a short sweep (one point per corner): seconds, for a first look or CI')
    .option('--json', 'print the profile and the fit as JSON')
    .action(async (_flags: unknown, command: Command) => {
      // `kb lab` has --backend and --json of its own: read them wherever they were typed.
      const flags = command.optsWithGlobals() as Partial<CalibrateFlags>;
      await calibrateCommand({ ...flags, backend: flags.backend ?? 'cpu', model: flags.model ?? 'gpt2-tiny' });
    });

  lab
    .command('devices')
    .description('list the devices the sim can model: built-in GPUs (datasheet), published profiles and the ones calibrated here, with their source and fit error')
    .option('--json', 'print as JSON')
    .action(async (_flags: unknown, command: Command) => {
      await devicesCommand(Boolean(command.optsWithGlobals().json));
    });
}

async function calibrateCommand(flags: CalibrateFlags): Promise<void> {
  if (flags.backend !== 'cpu' && flags.backend !== 'webgpu') throw new UserError(`--backend: calibrate runs on cpu or webgpu, got "${flags.backend}"`);
  const backend = flags.backend;
  const { NAMED_CONFIGS } = await import('../engine/index.ts');
  if (!(flags.model in NAMED_CONFIGS)) throw new UserError(`--model: unknown model "${flags.model}"; choose one of ${Object.keys(NAMED_CONFIGS).join(', ')}`);
  const name = flags.name ?? `${backend}-${flags.model}`;
  const { deviceNamePattern } = await import('../lab/lab-settings.ts');
  const { deviceNames } = await import('../engine/index.ts');
  const { publishedProfiles } = await import('../lab/devices/published-profiles.ts');
  if (!deviceNamePattern.test(name)) throw new UserError(`--name "${name}": use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)`);
  if (deviceNames().includes(name) || publishedProfiles().some((p) => p.name === name)) throw new UserError(`--name "${name}" is a device kb ships; choose another name`);

  const { calibrate } = await import('../lab/calibrate/calibrate.ts');
  const { saveProfile } = await import('../lab/devices/profile-store.ts');
  const { calibrationText } = await import('../lab/calibrate/calibrate-report.ts');
  const { textProgress } = await import('../ui/lab-progress-text.ts');
  const progress = textProgress(process.stderr);
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.on('SIGINT', onSigint);
  const started = performance.now();
  let result;
  try {
    result = await calibrate({
      model: flags.model,
      backend,
      name,
      quick: Boolean(flags.quick),
      signal: controller.signal,
      onProgress: (p) =>
        progress.update({
          point: p.wave,
          sweepKey: 'calibrate',
          pointIndex: p.waveIndex,
          points: p.waves,
          phase: 'measure',
          run: 1,
          runs: 1,
          requestsDone: p.requestsDone,
          requestsTotal: p.requestsTotal,
          elapsedMs: performance.now() - started,
        }),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UserError(`calibration failed: ${message.split('\n')[0]} (nothing saved)`);
  } finally {
    progress.done();
    process.off('SIGINT', onSigint);
  }
  if (controller.signal.aborted) throw new UserError('calibration interrupted: nothing saved');
  const path = saveProfile(result.profile);
  if (flags.json) process.stdout.write(`${JSON.stringify({ path, profile: result.profile, residuals: result.fit.residuals }, null, 2)}\n`);
  else process.stdout.write(calibrationText(result, path));
}

async function devicesCommand(json: boolean): Promise<void> {
  const { namedDevices } = await import('../engine/index.ts');
  const { publishedProfiles } = await import('../lab/devices/published-profiles.ts');
  const { listStoredProfiles, profilesDir } = await import('../lab/devices/profile-store.ts');
  const { describeSource, fitSummary } = await import('../lab/devices/device-profile.ts');
  const builtIn = Object.entries(namedDevices).map(([name, d]) => ({
    name,
    kind: 'datasheet' as const,
    model: null,
    source: `datasheet: ${(d.peakFlops / 1e12).toFixed(0)} TFLOP/s, ${(d.bandwidth / 1e9).toFixed(0)} GB/s, ${(d.memoryBytes / 1024 ** 3).toFixed(0)} GiB, efficiency ${d.efficiency}, ${d.stepOverheadMs} ms/step`,
    fit: 'not checked against a measurement',
    error: null as string | null,
  }));
  const profiles = [
    ...publishedProfiles().map((p) => ({ name: p.name, kind: 'published' as const, model: p.model, source: describeSource(p), fit: fitSummary(p), error: null as string | null })),
    ...listStoredProfiles().map((s) =>
      s.profile
        ? { name: s.name, kind: 'calibrated' as const, model: s.profile.model, source: describeSource(s.profile), fit: fitSummary(s.profile), error: null }
        : { name: s.name, kind: 'broken' as const, model: null, source: s.path, fit: '', error: s.error },
    ),
  ];
  const rows = [...builtIn, ...profiles];
  if (json) {
    process.stdout.write(`${JSON.stringify({ profilesDir: profilesDir(), devices: rows }, null, 2)}\n`);
    return;
  }
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) {
    if (r.error) {
      process.stdout.write(`${r.name.padEnd(width)}  (broken) ${r.error}\n`);
      continue;
    }
    process.stdout.write(`${r.name.padEnd(width)}  ${r.kind}${r.model ? `, for ${r.model}` : ''}\n${' '.repeat(width + 2)}${r.source}\n${' '.repeat(width + 2)}${r.fit}\n`);
  }
  process.stdout.write(`\nCalibrated profiles live in ${profilesDir()}. Make one: kb lab calibrate [--model M]   Use one: kb lab <name> --backend sim --set device=NAME\n`);
}
