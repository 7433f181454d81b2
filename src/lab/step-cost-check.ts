// `--compare`'s check of the sim's step costs: the measured run's own steps (shape and time,
// traced by the engine) against what the profile's fitted terms give for the same shapes. A
// prediction can miss because the terms no longer describe the machine (it runs slower than
// when it was calibrated: other programs on its cores) or because a term is missing (one kind
// or size of step off and not the others); this tells a learner which, from the same run.
import { availableParallelism, loadavg } from 'node:os';
import { type CostTerms, DECODE_SIZE_RANGES, decodeSizeLabel, percentile, predictStepMs, type StepKind, stepKind, type StepShape } from '../engine/index.ts';
import { BUSY_LOAD_PER_CORE, type DeviceProfile } from './devices/device-profile.ts';
import type { LabRunResult } from './run.ts';

export interface StepRatio {
  /** What the steps are: a kind of step, or decode steps of a range of batch sizes. */
  label: string;
  steps: number;
  /** Median of measured / predicted time over these steps. */
  ratio: number;
}

export interface StepCostCheck {
  profile: string;
  /** When the profile was calibrated (ISO date), or null for a published one. */
  calibratedAt: string | null;
  overall: StepRatio;
  byKind: StepRatio[];
  /** Decode steps by batch size: where a missing term (the roofline's bend) shows. */
  decodeBySize: StepRatio[];
  /** The machine's 1-minute load average as the measured run started, and at calibration when the profile kept it. */
  load: { measured: number; atCalibration: number | null; cores: number };
}

/** The 1-minute load average and the cores, taken before a run: other programs' share, not the run's own. */
export interface MachineLoad {
  average: number;
  cores: number;
}

/** The machine's load now: take it before kb's own threads start, so it counts only the others. */
export function machineLoadNow(): MachineLoad {
  return { average: loadavg()[0], cores: availableParallelism() };
}

interface Sample {
  shape: StepShape;
  ms: number;
}

/** Within this of 1, a ratio says the terms held. */
const HELD = 0.15;
/** Fewer steps than this in a group say nothing about it. */
const MIN_STEPS = 5;
/** A group of at least this many steps whose ratio is this far from the run's is a term missing, not noise. */
const MIN_STEPS_APART = 20;
const APART = 0.25;

/** The traced steps of every measured repeat of every point (empty when the run was not traced). */
function tracedSteps(result: LabRunResult): Sample[] {
  const samples: Sample[] = [];
  for (const point of result.points) {
    const runs = (point.report as { runs?: Array<{ steps?: Sample[] }> } | null)?.runs ?? [];
    for (const run of runs) if (run.steps) samples.push(...run.steps);
  }
  return samples;
}

function ratioOf(label: string, samples: readonly Sample[], terms: CostTerms): StepRatio | null {
  const ratios = samples.flatMap((s) => {
    const predicted = predictStepMs(terms, s.shape);
    return predicted > 0 && s.ms > 0 ? [s.ms / predicted] : [];
  });
  return ratios.length >= MIN_STEPS ? { label, steps: ratios.length, ratio: percentile(ratios, 50) } : null;
}

export function checkStepCosts(profile: DeviceProfile, measured: LabRunResult, loadBefore: MachineLoad): StepCostCheck | null {
  const samples = tracedSteps(measured);
  const overall = ratioOf('all', samples, profile.terms);
  if (overall === null) return null;
  const byKind = (['decode', 'prefill', 'mixed'] as StepKind[]).flatMap((kind) => ratioOf(kind, samples.filter((s) => stepKind(s.shape) === kind), profile.terms) ?? []);
  const decodes = samples.filter((s) => stepKind(s.shape) === 'decode');
  const decodeBySize = DECODE_SIZE_RANGES.flatMap(([from, to]) =>
    ratioOf(decodeSizeLabel([from, to]), decodes.filter((s) => s.shape.tokens >= from && s.shape.tokens <= to), profile.terms) ?? [],
  );
  return {
    profile: profile.name,
    calibratedAt: profile.source.kind === 'calibrated' ? profile.source.at : null,
    overall,
    byKind,
    decodeBySize,
    load: {
      measured: loadBefore.average,
      atCalibration: profile.source.kind === 'calibrated' ? (profile.source.load?.average ?? null) : null,
      cores: loadBefore.cores,
    },
  };
}

const times = (ratio: number) => `${ratio.toFixed(2)}x`;

/** Lines for the comparison's report: the ratios, then what they mean. One line each: printed, they are wrapped to the terminal. */
export function stepCostText(check: StepCostCheck): string[] {
  const { overall } = check;
  const kinds = check.byKind.map((k) => `${k.label} ${times(k.ratio)} over ${k.steps}`).join(', ');
  const lines = [
    `Step costs: the measured run's ${overall.steps} steps took ${times(overall.ratio)} the time ${check.profile}'s terms give for the same shapes (median; ${kinds}).`,
  ];
  const drifted = Math.abs(overall.ratio - 1) > HELD;
  if (drifted) {
    const { load } = check;
    const then = [check.calibratedAt?.slice(0, 10), load.atCalibration === null ? undefined : `load average ${load.atCalibration.toFixed(1)}`].filter(Boolean).join(', ');
    lines.push(
      `The machine ran ${overall.ratio > 1 ? 'slower' : 'faster'} than when ${check.profile} was calibrated${then ? ` (${then})` : ''}, ` +
        `as it does when other programs share its cores ${overall.ratio > 1 ? 'now' : 'less than they did then'} ` +
        `(load average ${load.measured.toFixed(1)} on ${load.cores} cores as the measured run started): the errors above carry that. Compare again when the machine is quiet, or calibrate again.`,
    );
  }
  // A kind or size of step off from the rest (beyond the run's own drift) is a term the model lacks.
  const groups = [...check.byKind, ...check.decodeBySize.map((s) => ({ ...s, label: `decode at batch ${s.label}` }))];
  const apart = groups.filter((g) => g.steps >= MIN_STEPS_APART && Math.abs(g.ratio / overall.ratio - 1) > APART);
  if (apart.length > 0) {
    const sizes = check.decodeBySize.length > 1 ? ` Decode steps by batch size: ${check.decodeBySize.map((s) => `${s.label} ${times(s.ratio)}`).join(', ')}.` : '';
    // A load hits short steps harder than long ones, so on a busy machine this is not yet proof.
    lines.push(
      `${drifted ? 'Beyond that, some' : 'Some'} steps were off by more than the rest (${apart.map((g) => g.label).join(', ')}): the cost model lacks a term for them, ` +
        `or a load hit them unevenly; the same on a quiet machine means the model.${sizes}`,
    );
  } else if (!drifted) {
    lines.push('The step costs held: the errors above come from what the sim schedules and draws (queueing, the spread of step times), not from its terms.');
  }
  const { atCalibration, cores } = check.load;
  if (atCalibration !== null && atCalibration > BUSY_LOAD_PER_CORE * cores) {
    lines.push(`${check.profile} was calibrated while other programs ran (load average ${atCalibration.toFixed(1)}): its terms carry their share of the cores. Calibrate again when the machine is quiet.`);
  }
  return lines;
}
