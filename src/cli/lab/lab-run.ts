// `kb lab <name>`: run a lab of the knowledge base on the bundled engine (or a server), and
// see each expectation reproduced or not. The `lab` command is made here; each of its other
// subcommands (list, show, history, compare, calibrate, devices) has a file of its own.
//
// Exit codes: 0 when a run completes, whatever its verdict (a lab is an experiment, and a
// changed setting is supposed to change the result; the verdict is printed and in --json);
// 1 for a bad lab file, an unknown or out-of-range --set, or an engine failure (the run is
// stored as failed) or an --endpoint server gone mid-run (stored as partial); 130 after
// Ctrl-C (the run is stored as partial).
//
// Only the settings registry (for --help) is imported up front; lab files, the store and
// the engine load inside the actions, so other commands start fast.
import { Option, type Command } from 'commander';
import { numberOption } from '../number-option.ts';
import type { LabRunResult } from '../../lab/run.ts';
import type { MachineLoad } from '../../lab/step-cost-check.ts';
import { noColorWanted } from '../../ui/text/no-color.ts';
import { labBackends, parseOverrides, settingRows, type SettingOverride } from '../../lab/lab-settings.ts';
import { ExitCode, UserError } from '../errors.ts';
import { openKnowledgeBase } from '../context.ts';
import { checkEndpointFlags, checkEndpointLab, connectEndpoint, presetForEndpoint, type EndpointFlags } from './endpoint-flags.ts';
import { registerCalibrate } from './lab-calibrate.ts';
import { registerDevices } from './lab-devices.ts';
import { asUserError, kbOption, loadLabOrExplain, userErrorNames } from './lab-errors.ts';
import { printList, registerList } from './lab-list.ts';
import { registerShow } from './lab-show.ts';
import { registerHistory } from './lab-history.ts';
import { registerCompare } from './lab-compare.ts';
import { labRoots } from '../../kb/location.ts';
import { helpTable } from '../help-layout.ts';
import { fittedToStderr, fittedToTerminal } from '../terminal-output.ts';
import { isSqliteFault } from '../../store/sqlite-fault.ts';

const collect = (value: string, previous: string[]) => [...previous, value];

/** The engine's error when `--backend webgpu` finds no adapter (src/engine/backend/webgpu/device.ts). */
const noAdapter = /^WebGPU found no (hardware )?adapter\./;

export function register(program: Command): void {
  const lab = program
    .command('lab')
    .summary('run a lab on the bundled inference engine, or list labs and past runs')
    .description(
      'Runs lab/<name>.md (the knowledge base\'s own, else kb\'s): its workload on the bundled engine (or, with --endpoint, against an OpenAI-compatible server), the report (queue wait, TTFT, TPOT, ITL, ' +
        'throughput, KV and scheduler stats), then each expectation shown as reproduced (✓) or not (✗). ' +
        'Every run is stored. Exit code 0 when the run completes, whatever the verdict; 130 when interrupted ' +
        '(the partial run is stored).',
    )
    .argument('[name]', 'the lab to run (see kb lab list)')
    .addOption(
      new Option('--set <key=value>', 'change a setting for this run (repeatable), e.g. --set engine.prefillMaxBatch=256').argParser(collect).default([], 'none'),
    )
    .option(
      '--backend <backend>',
      'cpu (computes on this CPU), webgpu (a GPU adapter; lavapipe counts), auto (a hardware GPU, else cpu; the run is stored as the one it chose) or sim (cost model, virtual clock); same as --set backend=...',
    )
    .option('--profile', 'time every kernel (webgpu) and show the table in the report; same as --set profile=true')
    .option('--points <labels>', 'for a sweep: run only these points, comma-separated (an expectation at a point left out, or on the sweep\'s fit, knee or SLO limit, is not judged; the report names the points it needs)')
    .option('--endpoint <url>', 'run the workload against an OpenAI-compatible server (vLLM, SGLang, llama.cpp, kb serve), e.g. http://127.0.0.1:8000/v1 (a bare http://host:port means its /v1; a route such as …/v1/completions is refused, naming the base to give); engine.* settings are then the server\'s, and an expectation dividing its queue or prefill time by TTFT reads the server\'s own TTFT (the report says when it must mix in the client\'s)')
    .option('--model <name>', 'with --endpoint: the served model to ask for (default: the first of /v1/models)')
    .option('--api-key-env <var>', 'with --endpoint: the environment variable holding the API key (sent as a Bearer token, never stored)')
    .option('--max-concurrency <n>', 'with --endpoint: at most this many requests in flight; the rest wait on the client')
    .addOption(numberOption('--request-timeout <s>', 'with --endpoint: give up on a request when the server sends nothing for this many seconds', 300))
    .option('--preset <name>', 'start from one of the lab\'s named settings (kb lab show <name> lists them), e.g. --preset seed-003; --set still wins (on a real backend, the preset\'s sim device is left out)')
    .option('--compare <backend>', 'with --backend sim: run the lab on this real backend too (cpu or webgpu) and print predicted vs measured with % error, then the measured steps against the profile\'s terms (the machine slower than at calibration, or a term missing); both runs are stored. A device that is no profile of that backend makes it a comparison of two machines: said before the runs start, and under the table')
    .option('--json', 'print the run as JSON (the report, the metrics, every check and the verdict: reproduced, not reproduced, incomplete, or no expectations for a lab that states none; README, Labs and the engine)')
    .addHelpText('after', helpTable('Settable keys (--set key=value):', settingRows().map(({ key, description }) => ({ term: key, description }))))
    .action(async (name: string | undefined, _options: unknown, command: Command) => {
      const options = command.opts() as RunOptions;
      if (!name) {
        await printList(kbOption(command), Boolean(options.json));
        return;
      }
      await runCommand(name, options, kbOption(command), (key) => command.getOptionValueSource(key) === 'cli');
    });

  registerCalibrate(lab);
  registerDevices(lab);
  registerList(lab);
  registerShow(lab);
  registerHistory(lab);
  registerCompare(lab);
}

interface RunOptions extends EndpointFlags {
  set: string[];
  backend?: string;
  profile?: boolean;
  points?: string;
  compare?: string;
  preset?: string;
  json?: boolean;
}

async function runCommand(name: string, options: RunOptions, kbDir: string | undefined, typedFlag: (key: keyof EndpointFlags) => boolean): Promise<void> {
  // Everything the user typed is checked before the knowledge base or the engine is touched.
  if (options.backend !== undefined && !labBackends.includes(options.backend as never)) {
    throw new UserError(`--backend: unknown backend "${options.backend}"; choose one of ${labBackends.join(', ')}`);
  }
  const typed: SettingOverride[] = (() => {
    try {
      return parseOverrides([
        ...options.set,
        ...(options.backend !== undefined ? [`backend=${options.backend}`] : []),
        ...(options.profile ? ['profile=true'] : []),
      ]);
    } catch (error) {
      return asUserError(error);
    }
  })();
  checkEndpointFlags(options, typed, typedFlag);
  const compareWith = options.compare ?? null;
  if (compareWith !== null && compareWith !== 'cpu' && compareWith !== 'webgpu') throw new UserError(`--compare: a real backend to measure on, cpu or webgpu (got "${compareWith}")`);
  const points = options.points?.split(',').map((p) => p.trim()).filter(Boolean);
  const { loadLab } = await import('../../lab/lab-files.ts');
  const { labSettings, selectPoints } = await import('../../lab/plan.ts');
  const { backendUnavailable } = await import('../../lab/engine-bridge.ts');
  const kb = openKnowledgeBase({ kb: kbDir });
  try {
    const lab = loadLabOrExplain(loadLab, labRoots(kb.root), name);
    const preset = options.preset === undefined ? null : lab.presets.find((p) => p.name === options.preset);
    if (preset === undefined) {
      throw new UserError(`--preset ${options.preset}: ${lab.name} has ${lab.presets.length === 0 ? 'no presets' : `the presets ${lab.presets.map((p) => p.name).join(', ')}`}`);
    }
    let presetOverrides = preset?.overrides ?? [];
    if (preset && options.endpoint !== undefined) {
      const { kept, dropped } = presetForEndpoint(presetOverrides);
      if (dropped.length > 0) process.stderr.write(`kb: --preset ${preset.name}: only its workload applies with --endpoint (${dropped.join(', ')}: the server's)\n`);
      presetOverrides = kept;
    }
    let overrides = [...presetOverrides, ...typed];
    // The run's device and model, for --compare's word before the runs.
    let planned: { device: string; model: string } | null = null;
    try {
      // Refuses combinations that could never run and unknown sweep points, before the engine starts.
      const settings = labSettings(lab, overrides, { serverOwnsEngine: options.endpoint !== undefined });
      planned = settings;
      // A preset's device is the sim's, as a typed one is (refused below on a real backend): kept
      // under --backend cpu it was stored and shown as what the cpu run changed ("device=seed-003-gpu").
      const presetDevice = presetOverrides.find((o) => o.key === 'device');
      if (preset && presetDevice && settings.backend !== 'sim') {
        process.stderr.write(`kb: --preset ${preset.name}: its device ${String(presetDevice.value)} is what the sim backend models; left out on ${settings.backend}\n`);
        overrides = overrides.filter((o) => o !== presetDevice);
      }
      if (compareWith !== null && settings.backend !== 'sim') throw new UserError(`--compare ${compareWith} checks the sim against a measurement: add --backend sim`);
      // The measured backend is asked now, before the sim's run: without a Vulkan driver,
      // --compare webgpu ran and stored the sim's run, then failed on the second.
      const unavailable = compareWith === null ? null : backendUnavailable(compareWith);
      if (unavailable !== null) throw new UserError(unavailable);
      const device = typed.find((o) => o.key === 'device');
      if (device && settings.backend !== 'sim') {
        throw new UserError(`--set device=${String(device.value)}: the device is what the sim backend models; it does nothing on ${settings.backend} (add --backend sim)`);
      }
      selectPoints(lab, settings, points);
    } catch (error) {
      asUserError(error);
    }
    if (options.endpoint !== undefined) checkEndpointLab(lab);
    // Asked once before the run is stored: a server that does not answer is one line, no run.
    const endpoint = options.endpoint !== undefined ? await beforeTheRun(() => connectEndpoint({ ...options, endpoint: options.endpoint! })) : undefined;
    const { runLab, labRunJson } = await import('../../lab/run.ts');
    const { labRunText } = await import('../../lab/report-text.ts');
    const { textProgress } = await import('../../ui/lab-progress-text.ts');

    const controller = new AbortController();
    const progress = textProgress(process.stderr);
    let interrupts = 0;
    // Whether a point's engine is starting: an abort is seen only once it has started (webgpu
    // compiles every kernel first, a minute or more with a cold shader cache on lavapipe).
    let engineStarting = false;
    const onSignal = (signal: NodeJS.Signals) => {
      interrupts += 1;
      if (interrupts === 1) {
        progress.freeze();
        // "Ctrl-C again" only to someone who pressed it: a SIGTERM came from a program.
        const again = signal === 'SIGINT' ? ' (Ctrl-C again: quit at once)' : ` (${signal})`;
        // While the engine starts, the stop waits for it: said now, or the wait read as a Ctrl-C
        // lost (wrapped to the terminal; the wait leaves time for that). Otherwise it is at once.
        if (engineStarting) {
          process.stderr.write('\n');
          const text = `kb: stopping the lab once its engine has started (a webgpu engine compiles its kernels first: minutes with a cold shader cache), then storing the partial run${again}\n`;
          void fittedToStderr(text).then((fitted) => process.stderr.write(fitted));
        } else process.stderr.write(`\nkb: stopping the lab, storing the partial run${again}\n`);
        controller.abort();
        return;
      }
      // Quit by the signal itself, as kb generate does, not by process.exit: exiting tears the
      // engine's worker down, and a webgpu worker torn down with a GPU wait pending (its kernel
      // warm-up, a step's readback) made Dawn abort the process ("Promise not resolved or
      // rejected", exit 134 instead of 130). A signal's default action ends it at once.
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.kill(process.pid, signal);
      // Where the signal's default action is to be ignored (started by a shell that ignores it).
      setTimeout(() => process.exit(ExitCode.interrupted), 1000).unref();
    };
    // SIGTERM (from `timeout`, CI or a service manager) stops a run as Ctrl-C does: it left an empty 'unfinished' run.
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const execute = async (runOverrides: SettingOverride[], traceSteps = false): Promise<LabRunResult> => {
      try {
        return await runLab({
          db: kb.db,
          lab,
          overrides: runOverrides,
          points,
          signal: controller.signal,
          onProgress: (p) => progress.update(p),
          onEngineStarting: (starting) => (engineStarting = starting),
          traceSteps,
          ...(endpoint ? { endpoint } : {}),
        });
      } catch (error) {
        progress.done();
        // The database refusing the run's rows (a full disk under it, a lock held past the busy
        // timeout) is no failure of the lab, and nothing could be stored: it was said as "lab
        // failed: database or disk is full (stored as failed)", naming no file and untrue. It
        // goes up to kb's fault line, which names the database and what to do.
        if (isSqliteFault(error)) throw error;
        if (error instanceof Error && userErrorNames.has(error.name)) throw new UserError(error.message);
        const message = error instanceof Error ? error.message : String(error);
        // No adapter is the machine's setup, not the lab's failure: the engine's one line says how to get one.
        if (noAdapter.test(message)) throw new UserError(message.split('\n')[0]);
        throw new UserError(`lab ${name} failed: ${message} (stored as failed)`);
      }
    };
    let result: LabRunResult;
    let measured: LabRunResult | null = null;
    let loadBefore: MachineLoad | null = null;
    // A sim device that is no profile of the backend measured makes the comparison one of two
    // machines: said now too, before the runs (minutes of gpt2 on the cpu), so it can be stopped.
    if (compareWith !== null && planned !== null) {
      const note = await compareNote(planned, compareWith, 'before');
      if (note !== null) process.stderr.write(await fittedToStderr(`kb: ${note}\n`));
    }
    try {
      result = await execute(overrides);
      // The measured run takes every --set but the sim's device (it would be stored, meaning nothing).
      // Its steps are traced: the sim's step costs are checked against them, with what else ran on the machine.
      if (compareWith !== null && result.status === 'ok') {
        loadBefore = (await import('../../lab/step-cost-check.ts')).machineLoadNow();
        measured = await execute([...overrides.filter((o) => o.key !== 'device'), { key: 'backend', value: compareWith }], true);
      }
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    progress.done();
    if (measured !== null) {
      const { predictionRows, predictionText } = await import('../../lab/prediction-check.ts');
      const { findProfile } = await import('../../lab/devices/resolve-device.ts');
      const { checkStepCosts, stepCostText } = await import('../../lab/step-cost-check.ts');
      const rows = predictionRows(result, measured);
      const profile = findProfile(result.settings.device);
      const deviceNote = await compareNote(result.settings, measured.backend, 'after');
      // Only a profile of this backend says something about this machine's steps.
      const stepCosts = profile !== null && deviceNote === null && loadBefore !== null ? checkStepCosts(profile, measured, loadBefore) : null;
      if (options.json) process.stdout.write(`${JSON.stringify({ predicted: labRunJson(result), measured: labRunJson(measured), comparison: rows, stepCosts }, null, 2)}\n`);
      else process.stdout.write(await fittedToTerminal(predictionText(result, measured, rows, deviceNote, stepCosts ? stepCostText(stepCosts) : [])));
      if (measured.status === 'partial') process.exitCode = ExitCode.interrupted;
      return;
    }
    if (options.json) process.stdout.write(`${JSON.stringify(labRunJson(result), null, 2)}\n`);
    else process.stdout.write(await fittedToTerminal(labRunText(result, { color: Boolean(process.stdout.isTTY) && !noColorWanted() })));
    // The server went away mid-run: a fault of the setup (exit 1), not a Ctrl-C (130). What was
    // measured before is in the report above; the cause, in one line.
    if (result.serverGone !== undefined) {
      process.stderr.write(`kb: lab ${name} stopped: ${result.serverGone} (stored as partial, run #${result.runId})\n`);
      process.exitCode = ExitCode.userError;
    } else if (result.status === 'partial') process.exitCode = ExitCode.interrupted;
  } finally {
    kb.db.close();
  }
}

/**
 * foreignDeviceNote for a run of the sim on `settings` checked against `backend`: null when its
 * device is a profile calibrated on that backend. A broken profile says nothing here: the run
 * refuses it in its own words.
 */
async function compareNote(settings: { device: string; model: string }, backend: string, when: 'before' | 'after'): Promise<string | null> {
  const { foreignDeviceNote } = await import('../../lab/prediction-check.ts');
  const { findProfile } = await import('../../lab/devices/resolve-device.ts');
  const { listStoredProfiles } = await import('../../lab/devices/profile-store.ts');
  const { model, device } = settings;
  let profile;
  try {
    profile = findProfile(device);
  } catch {
    return null;
  }
  const own = listStoredProfiles().flatMap((s) => (s.profile?.source.kind === 'calibrated' && s.profile.source.backend === backend && s.profile.model === model ? [s.name] : []));
  return foreignDeviceNote(device, profile, backend, model, own, when);
}

/**
 * Work before a run starts (asking a server what it serves, up to 30 s against a silent one): a
 * Ctrl-C or SIGTERM there says so and exits 130, as a run's does. Unhandled, SIGTERM ended kb
 * with 143 and neither said a word.
 */
async function beforeTheRun<T>(work: () => Promise<T>): Promise<T> {
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`\nkb: stopped (${signal}) before the run started; nothing was stored\n`);
    process.exit(ExitCode.interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await work();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
