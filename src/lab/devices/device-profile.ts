// A device profile: fitted step-cost terms and the KV capacity of one machine running one
// model, with where they came from. Calibrated profiles are JSON files in the user's data
// folder (devices/<name>.json); published ones ship with kb. Either is a sim device.
import { z } from 'zod';
import { COST_TERMS, type CostTerms, type DeviceSpec, NAMED_CONFIGS, SPREAD_POINTS } from '../../engine/index.ts';

export const PROFILE_FORMAT = 1;

const termsSchema = z.object(Object.fromEntries(COST_TERMS.map(({ term }) => [term, z.number().finite().nonnegative()])) as Record<keyof CostTerms, z.ZodNumber>);

const kindErrorSchema = z.object({ kind: z.enum(['decode', 'prefill', 'mixed']), steps: z.number().int(), medianPct: z.number(), worstPct: z.number() });

export const profileSchema = z.object({
  format: z.literal(PROFILE_FORMAT),
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/),
  /** The model the terms were measured on: they are per-token costs of that model only. */
  model: z.string().refine((m) => m in NAMED_CONFIGS, 'a named model (gpt2-tiny, gpt2, ...)'),
  source: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('calibrated'),
      backend: z.enum(['cpu', 'webgpu']),
      device: z.string(),
      at: z.string(),
      steps: z.number().int(),
      wallMs: z.number(),
      /** The 1-minute load average as the sweep started (other programs' share of the cores), and the cores (since 2026-11-27). */
      load: z.optional(z.object({ average: z.number().nonnegative(), cores: z.number().int().positive() })),
    }),
    z.object({
      kind: z.literal('published'),
      table: z.string(),
      hardware: z.string(),
      note: z.string(),
      /** How far the sim, on this profile, lands from the figures it was fitted to (%). */
      tableError: z.object({ figures: z.number().int(), medianPct: z.number(), worstPct: z.number() }),
    }),
  ]),
  terms: termsSchema,
  /** Measured / fitted step time at quantiles 0%, 1%, ..., 100% (calibrated profiles since 2026-11-26). */
  spread: z.optional(z.array(z.number().finite().nonnegative()).length(SPREAD_POINTS)),
  /** The same by size of step, each table for steps fitted at fromMs or longer (calibrated since 2026-11-26, later). */
  spreadBySize: z.optional(
    z.array(z.object({ fromMs: z.number().finite().nonnegative(), quantiles: z.array(z.number().finite().nonnegative()).length(SPREAD_POINTS) })).min(1),
  ),
  /** ms from submit until the scheduler sees a request (calibrated: an idle engine's queue wait). */
  submitMs: z.optional(z.number().finite().nonnegative()),
  kv: z.object({
    memoryBytes: z.number().positive(),
    weightBytes: z.number().nonnegative(),
    reserveBytes: z.number().nonnegative(),
    dtypeBytes: z.number().int().positive(),
  }),
  /** The fit to measured steps (calibrated profiles). */
  fit: z.optional(z.object({
    r2: z.number(),
    byKind: z.array(kindErrorSchema),
    kept: z.number().int(),
    outliers: z.number().int(),
  })),
});

export type DeviceProfile = z.infer<typeof profileSchema>;

/** The sim device a profile stands for: its fitted terms and its memory split. */
export function profileDevice(profile: DeviceProfile): DeviceSpec {
  const { terms, kv } = profile;
  return {
    name: profile.name,
    // The roofline's figures are not used when fitted terms are present; kept at what the terms imply.
    peakFlops: 0,
    bandwidth: 0,
    memoryBytes: kv.memoryBytes,
    dtypeBytes: kv.dtypeBytes,
    efficiency: 1,
    stepOverheadMs: terms.stepMs,
    fitted: { ...terms },
    submitMs: profile.submitMs ?? 0,
    // A profile from before the tables by size has one table for every step.
    ...(profile.spreadBySize ? { stepSpread: profile.spreadBySize } : profile.spread ? { stepSpread: [{ fromMs: 0, quantiles: profile.spread }] } : {}),
    weightBytes: kv.weightBytes,
    reserveBytes: kv.reserveBytes,
  };
}

/** "calibrated here on 2026-11-25 from cpu (2 threads, ...)" or "fitted to a published table: ...". */
export function describeSource(profile: DeviceProfile): string {
  const s = profile.source;
  if (s.kind === 'calibrated') return `calibrated here on ${s.at.slice(0, 10)} from ${s.backend} (${s.device})`;
  return `fitted to a published table: ${s.table} (${s.hardware}); fitted, not predicted`;
}

/** The worst per-kind median error, the figure `kb lab devices` shows. */
export function fitSummary(profile: DeviceProfile): string {
  if (profile.source.kind === 'published') {
    const t = profile.source.tableError;
    return `off its table by ${t.medianPct.toFixed(1)}% (median) and ${t.worstPct.toFixed(1)}% (worst) over ${t.figures} figures`;
  }
  if (!profile.fit) return 'no fit recorded';
  const worstMedian = Math.max(0, ...profile.fit.byKind.map((k) => k.medianPct));
  return `step-time fit: R² ${profile.fit.r2.toFixed(3)}, median error ≤ ${worstMedian.toFixed(1)}% per step kind`;
}

/** Above this load average per core before a sweep or a run, other programs had a real share of the machine. */
export const BUSY_LOAD_PER_CORE = 0.5;

/** Below this R², or above this median error for a kind of step, a calibration's fit is called poor. */
export const POOR_R2 = 0.95;
export const POOR_MEDIAN_PCT = 15;

type KindError = z.infer<typeof kindErrorSchema>;

/** Whether a fit is too loose to trust, and the kind of step furthest off when that is what makes it so. */
export function poorFit(fit: { r2: number; byKind: readonly KindError[] }): { r2: number; worstKind: KindError | null } | null {
  const worst = fit.byKind.reduce<KindError | null>((a, b) => (a === null || b.medianPct > a.medianPct ? b : a), null);
  if (fit.r2 >= POOR_R2 && (worst === null || worst.medianPct <= POOR_MEDIAN_PCT)) return null;
  return { r2: fit.r2, worstKind: worst !== null && worst.medianPct > POOR_MEDIAN_PCT ? worst : null };
}

/**
 * What `kb lab devices` says of a profile: what it is beside the name, then one labelled line
 * each for where its numbers come from and how well they fit, and a warning for a poor fit.
 * As sentences run together, a published profile read "...(a CUDA GPU (taken to be ...) under a
 * Python serving loop ...); fitted, not predicted" and then "off its table by 1.1% ...", and a
 * calibration the calibrate report had warned about was listed without a word of it.
 */
export function listingLines(profile: DeviceProfile): { head: string; lines: Array<{ label: string; text: string }> } {
  const s = profile.source;
  if (s.kind === 'published') {
    const t = s.tableError;
    return {
      head: `published, for ${profile.model}: fitted to a table, not predicted`,
      lines: [
        { label: 'table', text: s.table },
        { label: 'machine', text: s.hardware },
        { label: 'fit', text: `the sim is off the table by ${t.medianPct.toFixed(1)}% at the median and ${t.worstPct.toFixed(1)}% at worst, over its ${t.figures} figures` },
      ],
    };
  }
  const lines = [
    { label: 'source', text: `this machine's ${s.backend} backend on ${s.at.slice(0, 10)} (${s.device})` },
    { label: 'fit', text: fitSummary(profile).replace(/^step-time fit: /, '') },
  ];
  const poor = profile.fit ? poorFit(profile.fit) : null;
  if (poor !== null) {
    const kind = poor.worstKind !== null ? `, ${poor.worstKind.kind} steps off by ${poor.worstKind.medianPct.toFixed(1)}% at the median` : '';
    lines.push({
      label: 'warning',
      text: `a poor fit (R² ${poor.r2.toFixed(3)}${kind}): the sim will be off on this profile. Calibrate again when the machine is quiet: kb lab calibrate${s.backend === 'cpu' ? '' : ` --backend ${s.backend}`} --model ${profile.model} --name ${profile.name}`,
    });
  }
  return { head: `calibrated, for ${profile.model}`, lines };
}
