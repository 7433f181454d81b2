// The scheduler's knobs, their defaults and their valid ranges and choices (the lab runner
// refuses an out-of-range `--set` with these before anything is allocated).

export type SchedulingPolicy = 'continuous' | 'static';

/**
 * paged: a sequence gets KV blocks as its tokens arrive (vLLM). contiguous: a request is
 * admitted only when blocks for its whole maximum length (prompt + maxNewTokens) can be
 * reserved up front, and it holds them until it finishes (the pre-vLLM servers), so every
 * token it never generates is memory nobody else can use.
 */
export type KvReservation = 'paged' | 'contiguous';

export interface SchedulerOptions {
  /** continuous: admit new requests every step; static: a batch runs to completion before the next is formed. */
  policy: SchedulingPolicy;
  /** Token budget of one step (decode tokens + prefill chunks). */
  maxBatchedTokens: number;
  /** Most sequences running at once (the batch size of the static policy). */
  maxNumSeqs: number;
  /** Most new requests admitted to prefill in one step. */
  prefillMaxBatch: number;
  /** Most prefill tokens of one sequence in one step; 0 = no chunking (a prompt runs whole). */
  chunkSize: number;
  /** paged (default): blocks as tokens arrive; contiguous: the whole maximum length reserved at admission. */
  kvReservation: KvReservation;
}

// vLLM's default budget; a cap of 64 running sequences keeps the CPU backend's batches in
// the range where batching still pays.
export const defaultSchedulerOptions: SchedulerOptions = {
  policy: 'continuous',
  maxBatchedTokens: 2048,
  maxNumSeqs: 64,
  prefillMaxBatch: 64,
  chunkSize: 512,
  kvReservation: 'paged',
};

export interface IntegerRange {
  min: number;
  max: number;
}

/** The options that name one of a few choices; every other option is an integer in a range. */
type ChoiceOption = 'policy' | 'kvReservation';

export const schedulerOptionRanges: Record<Exclude<keyof SchedulerOptions, ChoiceOption>, IntegerRange> = {
  maxBatchedTokens: { min: 1, max: 1 << 20 },
  maxNumSeqs: { min: 1, max: 4096 },
  prefillMaxBatch: { min: 1, max: 4096 },
  chunkSize: { min: 0, max: 1 << 20 },
};

export const schedulingPolicies: readonly SchedulingPolicy[] = ['continuous', 'static'];
export const kvReservations: readonly KvReservation[] = ['paged', 'contiguous'];

export const schedulerOptionChoices: { [K in ChoiceOption]: readonly SchedulerOptions[K][] } = {
  policy: schedulingPolicies,
  kvReservation: kvReservations,
};

/** Fills defaults and checks ranges; throws a RangeError naming every bad key. */
export function resolveSchedulerOptions(partial: Partial<SchedulerOptions> = {}): SchedulerOptions {
  const options = { ...defaultSchedulerOptions, ...stripUndefined(partial) };
  const problems: string[] = [];
  for (const [key, choices] of Object.entries(schedulerOptionChoices)) {
    const value: unknown = options[key as ChoiceOption];
    if (!(choices as readonly unknown[]).includes(value)) problems.push(`${key} must be one of ${choices.join(', ')} (got ${String(value)})`);
  }
  for (const [key, range] of Object.entries(schedulerOptionRanges)) {
    const value = options[key as keyof typeof schedulerOptionRanges];
    if (!Number.isInteger(value) || value < range.min || value > range.max) {
      problems.push(`${key} must be an integer in [${range.min}, ${range.max}] (got ${value})`);
    }
  }
  if (problems.length > 0) throw new RangeError(`scheduler options: ${problems.join('; ')}`);
  return options;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
