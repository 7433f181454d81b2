// `kb lab calibrate`: fit the sim's cost model to this machine and save it as a device profile.
import type { Command } from 'commander';
import { ExitCode, UserError } from '../errors.ts';
import { fittedToTerminal } from '../terminal-output.ts';

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
        'fit the sim\'s cost terms and the spread of step times around them, print the fit, and save a device profile usable as --set device=NAME',
    )
    .option('--backend <backend>', 'cpu or webgpu (default: cpu)')
    .option('--model <model>', 'the model to profile (profiles are per model)', 'gpt2-tiny')
    .option('--name <name>', 'the profile\'s name, and its file\'s (default: <backend>-<model>; not a device kb ships, case aside: H100 and h100 are refused)')
    .option('--quick', 'a short sweep (one point per corner): seconds, for a first look or CI')
    .option('--json', 'print the profile and the fit as JSON')
    .action(async (_flags: unknown, command: Command) => {
      // `kb lab` has --backend and --json of its own: read them wherever they were typed.
      const flags = command.optsWithGlobals() as Partial<CalibrateFlags>;
      await calibrateCommand({ ...flags, backend: flags.backend ?? 'cpu', model: flags.model ?? 'gpt2-tiny' });
    });
}

async function calibrateCommand(flags: CalibrateFlags): Promise<void> {
  if (flags.backend !== 'cpu' && flags.backend !== 'webgpu') throw new UserError(`--backend: calibrate runs on cpu or webgpu, got "${flags.backend}"`);
  const backend = flags.backend;
  const { NAMED_CONFIGS } = await import('../../engine/index.ts');
  if (!(flags.model in NAMED_CONFIGS)) throw new UserError(`--model: unknown model "${flags.model}"; choose one of ${Object.keys(NAMED_CONFIGS).join(', ')}`);
  const name = flags.name ?? `${backend}-${flags.model}`;
  const { deviceNamePattern } = await import('../../lab/lab-settings.ts');
  const { shippedNameClash } = await import('../../lab/devices/device-names.ts');
  if (!deviceNamePattern.test(name)) throw new UserError(`--name "${name}": use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)`);
  const clash = shippedNameClash(name);
  if (clash !== null) throw new UserError(`--name ${clash}; choose another name`);

  const { calibrate } = await import('../../lab/calibrate/calibrate.ts');
  const { listStoredProfiles, saveProfile } = await import('../../lab/devices/profile-store.ts');
  const { calibrationText } = await import('../../lab/calibrate/calibrate-report.ts');
  const { textProgress } = await import('../../ui/lab-progress-text.ts');
  const progress = textProgress(process.stderr);
  const controller = new AbortController();
  // Ctrl-C, or a SIGTERM from `timeout` or a service manager: stop the sweep, save nothing.
  const onSigint = () => controller.abort();
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
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
    process.off('SIGTERM', onSigint);
  }
  if (controller.signal.aborted) throw new UserError('calibration interrupted: nothing saved', ExitCode.interrupted);
  const replaced = listStoredProfiles().find((stored) => stored.name === name);
  const path = saveProfile(result.profile);
  if (flags.json) process.stdout.write(`${JSON.stringify({ path, replaced: replaced?.path ?? null, profile: result.profile, residuals: result.fit.residuals }, null, 2)}\n`);
  else process.stdout.write(await fittedToTerminal(calibrationText(result, path, replaced ?? null)));
}
