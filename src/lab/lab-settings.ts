// Every setting a lab run has, in one registry: its type and valid range. The lab file's
// frontmatter, `--set key=value` and a sweep's values are all checked against it, so an
// unknown key or an out-of-range value is refused before the engine allocates anything.
// The scheduler's ranges and defaults and the model names come from the engine itself
// (small, pure modules), so the two can never disagree.
import { nearestTypo } from './typo.ts';
import { backendNames, DEFAULT_BLOCK_SIZE, DEFAULT_DEVICE, engineOptionRanges, type BackendName, namedDevices, NAMED_CONFIGS, defaultSchedulerOptions, kvReservations, schedulerOptionRanges, schedulingPolicies, type KvReservation } from '../engine/index.ts';

/** A uniform range, or a list used in turn (`values`, with min and max its extremes). */
export type Length = { min: number; max: number; values?: number[] };

export interface LabSettings {
  model: string;
  /** auto resolves to webgpu on a hardware adapter, else cpu; the report says which ran. */
  backend: BackendName;
  /** Time every kernel (the webgpu backend); the report shows the table. */
  profile: boolean;
  /** The GPU the sim backend models (ignored by cpu). */
  device: string;
  /** Untimed runs before the measured ones (caches, JIT, worker start-up). */
  warmup: number;
  /** Measured runs; the report pools their requests. */
  repeats: number;
  engine: {
    /** Tokens per KV block. */
    blockSize: number;
    /** KV pool size in MiB (the number of blocks follows from the model's shape); 0 = the engine's default. */
    kvBudgetMB: number;
    /** Token budget of one step (decode tokens + prefill chunks). */
    maxBatchedTokens: number;
    /** Most sequences running at once. */
    maxNumSeqs: number;
    /** New requests admitted to prefill per step. */
    prefillMaxBatch: number;
    /** Largest prefill chunk of one sequence per step; 0 = prefill whole prompts. */
    chunkSize: number;
    policy: 'continuous' | 'static';
    prefixCaching: boolean;
    /** paged: blocks as tokens arrive; contiguous: prompt + maxNewTokens reserved at admission. */
    kvReservation: KvReservation;
  };
  workload: {
    requests: number;
    promptTokens: Length;
    outputTokens: Length;
    /** The maximum each request declares (it still stops at its output length); 0 = its output length. */
    maxNewTokens: Length;
    arrival: 'burst' | 'poisson' | 'gamma';
    /** Requests per second, for poisson and gamma arrivals. */
    rate: number;
    /** Gamma shape: 1 is Poisson, below 1 burstier, above 1 more regular. */
    burstiness: number;
    /** Tokens every prompt starts with (a shared system prompt); 0 = fully unique prompts. */
    sharedPrefix: number;
    seed: number;
  };
  /** Service-level objectives for goodput; 0 = not checked. */
  slo: {
    ttftMs: number;
    tpotMs: number;
  };
}

interface SettingBase {
  key: string;
  describe: string;
  /** What a value counts, where it counts something ("tokens"): a sweep's value is read with it ("knee at 16 requests"). */
  unit?: string;
}
export type SettingSpec =
  | (SettingBase & { kind: 'int'; min: number; max: number })
  | (SettingBase & { kind: 'number'; min: number; max: number; minExclusive?: boolean })
  | (SettingBase & { kind: 'length'; min: number; max: number })
  | (SettingBase & { kind: 'bool' })
  | (SettingBase & { kind: 'enum'; values: readonly string[] })
  /** A name resolved when the run starts (a device: built in, or a profile in the user's data folder). */
  | (SettingBase & { kind: 'name'; known: readonly string[] });

/** What a device or profile name may look like (it becomes a file name). */
export const deviceNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export type SettingValue = number | boolean | string | Length;

/** The models a lab may name; the engine's named GPT-2 configs. */
export const labModels: readonly string[] = Object.keys(NAMED_CONFIGS);
export const labBackends: readonly BackendName[] = backendNames;

export const settingSpecs: readonly SettingSpec[] = [
  { key: 'model', kind: 'enum', values: labModels, describe: 'named GPT-2 config' },
  {
    key: 'backend',
    kind: 'enum',
    values: labBackends,
    describe: 'cpu computes on this CPU; webgpu on a GPU adapter (lavapipe counts); auto: a hardware GPU, else cpu; sim: a cost model on a virtual clock',
  },
  { key: 'profile', kind: 'bool', describe: 'time every kernel (webgpu); the report shows the table' },
  { key: 'device', kind: 'name', known: Object.keys(namedDevices), describe: 'what the sim backend models: a built-in GPU or a profile from kb lab calibrate (see kb lab devices)' },
  { key: 'warmup', kind: 'int', min: 0, max: 10, describe: 'untimed runs first' },
  { key: 'repeats', kind: 'int', min: 1, max: 20, describe: 'measured runs, pooled' },
  { key: 'engine.blockSize', unit: 'tokens', kind: 'int', ...engineOptionRanges.blockSize, describe: 'tokens per KV block' },
  { key: 'engine.kvBudgetMB', unit: 'MiB', kind: 'number', min: 0, max: 1024 * 1024, describe: 'KV pool size, MiB; 0 = engine default' },
  { key: 'engine.maxBatchedTokens', unit: 'tokens', kind: 'int', ...schedulerOptionRanges.maxBatchedTokens, describe: 'token budget per step' },
  { key: 'engine.maxNumSeqs', unit: 'seqs', kind: 'int', ...schedulerOptionRanges.maxNumSeqs, describe: 'running sequences at most' },
  { key: 'engine.prefillMaxBatch', unit: 'requests', kind: 'int', ...schedulerOptionRanges.prefillMaxBatch, describe: 'requests admitted to prefill per step' },
  { key: 'engine.chunkSize', unit: 'tokens', kind: 'int', ...schedulerOptionRanges.chunkSize, describe: 'prefill chunk per sequence per step, 0 = off' },
  { key: 'engine.policy', kind: 'enum', values: schedulingPolicies, describe: 'batching policy' },
  { key: 'engine.prefixCaching', kind: 'bool', describe: 'reuse cached KV blocks of shared prefixes' },
  { key: 'engine.kvReservation', kind: 'enum', values: kvReservations, describe: 'paged: KV blocks as tokens arrive; contiguous: the declared maximum reserved up front' },
  { key: 'workload.requests', unit: 'requests', kind: 'int', min: 1, max: 100000, describe: 'requests per run' },
  { key: 'workload.promptTokens', unit: 'tokens', kind: 'length', min: 1, max: 65536, describe: 'prompt length: N or A..B' },
  { key: 'workload.outputTokens', unit: 'tokens', kind: 'length', min: 1, max: 65536, describe: 'tokens generated: N or A..B' },
  { key: 'workload.maxNewTokens', unit: 'tokens', kind: 'length', min: 0, max: 65536, describe: 'maximum each request declares (it stops at its output length); 0 = the output length' },
  { key: 'workload.arrival', kind: 'enum', values: ['burst', 'poisson', 'gamma'], describe: 'how requests arrive' },
  { key: 'workload.rate', unit: 'req/s', kind: 'number', min: 0, minExclusive: true, max: 1e6, describe: 'requests/s (poisson, gamma)' },
  { key: 'workload.burstiness', kind: 'number', min: 0, minExclusive: true, max: 100, describe: 'gamma shape, 1 = Poisson' },
  { key: 'workload.sharedPrefix', unit: 'tokens', kind: 'int', min: 0, max: 65536, describe: 'tokens shared by every prompt' },
  { key: 'workload.seed', kind: 'int', min: 0, max: 2 ** 31 - 1, describe: 'seed of prompts and arrivals' },
  { key: 'slo.ttftMs', unit: 'ms', kind: 'number', min: 0, max: 3_600_000, describe: 'goodput counts requests with TTFT <= this, ms; 0 = off' },
  { key: 'slo.tpotMs', unit: 'ms', kind: 'number', min: 0, max: 3_600_000, describe: 'goodput counts requests with TPOT <= this, ms; 0 = off' },
];

const specByKey = new Map(settingSpecs.map((spec) => [spec.key, spec]));

/** The settings a lab starts from when its file does not say otherwise. */
export const defaultSettings: LabSettings = {
  model: 'gpt2-tiny',
  backend: 'cpu',
  profile: false,
  device: DEFAULT_DEVICE,
  warmup: 1,
  repeats: 1,
  engine: {
    blockSize: DEFAULT_BLOCK_SIZE,
    kvBudgetMB: 0,
    ...defaultSchedulerOptions,
    prefixCaching: true,
  },
  workload: {
    requests: 64,
    promptTokens: { min: 8, max: 8 },
    outputTokens: { min: 16, max: 16 },
    maxNewTokens: { min: 0, max: 0 },
    arrival: 'burst',
    rate: 10,
    burstiness: 1,
    sharedPrefix: 0,
    seed: 0,
  },
  slo: { ttftMs: 0, tpotMs: 0 },
};

export class SettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingError';
  }
}

export function settingSpec(key: string): SettingSpec | undefined {
  return specByKey.get(key);
}

/**
 * Keys a server sets for itself (its engine, its model, its hardware): with --endpoint a
 * `--set` of one is refused, and a stored run's value of one is the lab file's, not what ran.
 */
export function serverOwnedKey(key: string): boolean {
  return key.startsWith('engine.') || key === 'backend' || key === 'device' || key === 'profile' || key === 'model';
}

/** Whether a run's `device` setting meant anything: only where the sim ran it, not a real backend or a server. */
export function simulatedRun(settings: { backend?: unknown }, endpoint: boolean): boolean {
  return !endpoint && settings.backend === 'sim';
}

/**
 * Settings as a run's --json gives them: `device` (the GPU the sim models) only where the sim
 * ran. On cpu or webgpu, or against a server, it is the default that nothing read, and
 * `settings.device: "A100-40GB"` beside `backend: "cpu"` said the run was modelled on one.
 * `settings` is a stored run's as it was kept (older kb versions' included), or null.
 */
export function reportedSettings(settings: unknown, endpoint: boolean): unknown {
  if (settings === null || typeof settings !== 'object') return settings;
  const { device, ...rest } = settings as { backend?: unknown; device?: unknown };
  return simulatedRun(rest, endpoint) ? settings : rest;
}

/** "integer 1..4096", "continuous | static": what a key accepts, for error messages and help. */
export function describeRange(spec: SettingSpec): string {
  switch (spec.kind) {
    case 'int':
      return `integer ${spec.min}..${spec.max}`;
    case 'number':
      return `number ${spec.minExclusive ? '>' : '>='} ${spec.min}, <= ${spec.max}`;
    case 'length':
      return `integer ${spec.min}..${spec.max}, A..B, or A,B,C in turn`;
    case 'bool':
      return 'true | false';
    case 'enum':
      return spec.values.join(' | ');
    case 'name':
      return `${spec.known.join(' | ')} | a profile name`;
  }
}

/** Each key with what it accepts and what it does: kb lab --help's table. */
export function settingRows(): Array<{ key: string; description: string }> {
  return settingSpecs.map((spec) => ({ key: spec.key, description: `${describeRange(spec)}  (${spec.describe})` }));
}

/** Where the keys are listed, for an error that names a bad one (kb serve --help points there too). */
const KEYS_LISTED = 'kb lab --help lists the keys';

/**
 * The valid key the learner probably meant: the same key in another case or without its group
 * ("prefillMaxBatch", "engine.requests"), else one a typo away (at most a third of its name's letters).
 */
export function closestKey(key: string, accepts: (key: string) => boolean = () => true): string | null {
  const keys = settingSpecs.map((spec) => spec.key).filter(accepts);
  const lower = key.toLowerCase();
  const last = (k: string) => k.toLowerCase().split('.').pop()!;
  const same = keys.find((k) => k.toLowerCase() === lower) ?? keys.find((k) => last(k) === last(key));
  if (same) return same;
  // Counted on the name after the group: "engine." shared made engine.nosuch look close to engine.policy.
  return nearestTypo(key, keys, last(key).length);
}

/** One line, as every kb error is: the bad key, the closest valid one, where the list is (the whole table ran to 30 lines). */
function unknownKey(key: string, where: string, accepts?: (key: string) => boolean): SettingError {
  const closest = closestKey(key, accepts);
  return new SettingError(`${where}: unknown setting "${key}"${closest ? `; did you mean ${closest}?` : ''} (${KEYS_LISTED})`);
}

/**
 * Checks a value already typed (from YAML) against a key's range; returns the normalised
 * value (a length becomes {min, max}) or a sentence saying what is wrong.
 */
export function checkValue(spec: SettingSpec, value: unknown): { ok: true; value: SettingValue } | { ok: false; problem: string } {
  const bad = { ok: false as const, problem: `must be ${describeRange(spec)}, got ${JSON.stringify(value)}` };
  switch (spec.kind) {
    case 'int':
      return Number.isInteger(value) && (value as number) >= spec.min && (value as number) <= spec.max ? { ok: true, value: value as number } : bad;
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return bad;
      const aboveMin = spec.minExclusive ? value > spec.min : value >= spec.min;
      return aboveMin && value <= spec.max ? { ok: true, value } : bad;
    }
    case 'bool':
      return typeof value === 'boolean' ? { ok: true, value } : bad;
    case 'enum':
      return typeof value === 'string' && spec.values.includes(value) ? { ok: true, value } : bad;
    case 'name':
      return typeof value === 'string' && deviceNamePattern.test(value) ? { ok: true, value } : bad;
    case 'length': {
      const length = toLength(value);
      if (!length) return bad;
      const inRange = [length.min, length.max, ...(length.values ?? [])].every((n) => Number.isInteger(n) && n >= spec.min && n <= spec.max);
      if (!inRange) return bad;
      if (length.min > length.max) return { ok: false, problem: `range ${length.min}..${length.max} is empty (min > max)` };
      return { ok: true, value: length };
    }
  }
}

function toLength(value: unknown): Length | null {
  if (typeof value === 'number') return { min: value, max: value };
  if (Array.isArray(value)) {
    if (value.length === 0 || !value.every((n) => typeof n === 'number')) return null;
    if (value.length === 1) return { min: value[0], max: value[0] };
    return { min: Math.min(...value), max: Math.max(...value), values: [...value] };
  }
  if (typeof value === 'string') {
    if (/^\s*\d+(\s*,\s*\d+)+\s*$/.test(value)) return toLength(value.split(',').map(Number));
    const match = /^\s*(\d+)\s*\.\.\s*(\d+)\s*$/.exec(value);
    return match ? { min: Number(match[1]), max: Number(match[2]) } : null;
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const { min, max, values, ...rest } = value as Record<string, unknown>;
    if (Array.isArray(values)) return toLength(values);
    if (Object.keys(rest).length > 0 || typeof min !== 'number' || typeof max !== 'number') return null;
    return { min, max };
  }
  return null;
}

/** Turns the text of `--set key=value` into the key's type, then checks the range. */
export function parseSettingText(spec: SettingSpec, text: string): { ok: true; value: SettingValue } | { ok: false; problem: string } {
  const trimmed = text.trim();
  let value: unknown = trimmed;
  if (spec.kind === 'int' || spec.kind === 'number') value = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(trimmed) ? Number(trimmed) : trimmed;
  else if (spec.kind === 'bool') value = { true: true, on: true, yes: true, '1': true, false: false, off: false, no: false, '0': false }[trimmed.toLowerCase()] ?? trimmed;
  else if (spec.kind === 'length' && /^\d+$/.test(trimmed)) value = Number(trimmed);
  return checkValue(spec, value);
}

export interface SettingOverride {
  key: string;
  value: SettingValue;
}

/**
 * Parses the `--set key=value` arguments. Throws a SettingError naming the argument (and for an
 * unknown key the closest valid one) on the first one that is wrong.
 */
export function parseOverrides(args: readonly string[], accepts?: (key: string) => boolean): SettingOverride[] {
  return args.map((arg) => {
    const eq = arg.indexOf('=');
    if (eq <= 0) throw new SettingError(`--set ${arg}: expected key=value, e.g. --set engine.prefillMaxBatch=256 (${KEYS_LISTED})`);
    const key = arg.slice(0, eq).trim();
    const spec = settingSpec(key);
    if (!spec) throw unknownKey(key, `--set ${arg}`, accepts);
    const parsed = parseSettingText(spec, arg.slice(eq + 1));
    if (!parsed.ok) throw new SettingError(`--set ${arg}: ${key} ${parsed.problem}`);
    return { key, value: parsed.value };
  });
}

export function getSetting(settings: LabSettings, key: string): SettingValue {
  const [head, tail] = key.split('.');
  const record = settings as unknown as Record<string, unknown>;
  const value = tail === undefined ? record[head] : (record[head] as Record<string, unknown> | undefined)?.[tail];
  return value as SettingValue;
}

/** A copy of `settings` with the overrides applied, later ones winning. */
export function applyOverrides(settings: LabSettings, overrides: readonly SettingOverride[]): LabSettings {
  const next: LabSettings = structuredClone(settings);
  for (const { key, value } of overrides) {
    if (!specByKey.has(key)) throw unknownKey(key, 'override');
    const [head, tail] = key.split('.');
    const record = next as unknown as Record<string, unknown>;
    if (tail === undefined) record[head] = value;
    else (record[head] as Record<string, unknown>)[tail] = value;
  }
  return next;
}

/** "4" for a fixed length, "4..12" for a range; settings shown to people and in history. */
export function formatSettingValue(value: SettingValue): string {
  if (typeof value === 'object') {
    if (value.values) return value.values.join(',');
    return value.min === value.max ? String(value.min) : `${value.min}..${value.max}`;
  }
  return String(value);
}

/** The overrides that turn `base` into `settings`: what a run changed, for history. */
export function diffSettings(base: LabSettings, settings: LabSettings): SettingOverride[] {
  return settingSpecs
    .filter((spec) => formatSettingValue(getSetting(base, spec.key)) !== formatSettingValue(getSetting(settings, spec.key)))
    .map((spec) => ({ key: spec.key, value: getSetting(settings, spec.key) }));
}

/**
 * The blocks engine.kvBudgetMB holds on this model and backend, and the bytes of one; null
 * where no budget is set (the engine's default) or the model is not a named one.
 */
export function kvBudgetBlocks(settings: LabSettings): { blocks: number; blockBytes: number } | null {
  const config = NAMED_CONFIGS[settings.model];
  const { engine } = settings;
  if (!config || engine.kvBudgetMB <= 0) return null;
  // K and V of every layer per token: fp32 on the cpu, the modelled device's width on the sim.
  const elementBytes = settings.backend === 'sim' ? (namedDevices[settings.device]?.dtypeBytes ?? 2) : 4;
  const blockBytes = 2 * config.nLayer * config.nEmbd * elementBytes * engine.blockSize;
  return { blocks: Math.floor((engine.kvBudgetMB * 1024 * 1024) / blockBytes), blockBytes };
}

/**
 * Rules that involve more than one key, checked after overrides are applied and before
 * the engine starts.
 */
export function crossCheck(settings: LabSettings, options: { serverOwnsEngine?: boolean } = {}): string[] {
  const problems: string[] = [];
  const { engine, workload } = settings;
  if (workload.sharedPrefix >= workload.promptTokens.min) {
    problems.push(`workload.sharedPrefix (${workload.sharedPrefix}) must be shorter than the shortest prompt (workload.promptTokens ${formatSettingValue(workload.promptTokens)})`);
  }
  // Against a server (--endpoint) its own engine, model and context decide the rest.
  if (options.serverOwnsEngine) return problems;
  if (engine.chunkSize === 0 && engine.maxBatchedTokens < workload.promptTokens.max) {
    problems.push(
      `engine.maxBatchedTokens (${engine.maxBatchedTokens}) is smaller than the longest prompt (${workload.promptTokens.max}) and engine.chunkSize is 0: such a prompt could never be scheduled; raise the budget or set engine.chunkSize`,
    );
  }
  const declared = workload.maxNewTokens;
  const declaresMax = declared.max > 0;
  if (declaresMax && [declared.min, ...(declared.values ?? [])].some((n) => n === 0)) {
    problems.push(`workload.maxNewTokens (${formatSettingValue(declared)}): 0 means "each request declares its output length" and cannot be mixed with other lengths`);
  }
  const config = NAMED_CONFIGS[settings.model];
  const [lengthKey, lengthMax] = declaresMax && declared.max > workload.outputTokens.max ? ['maxNewTokens', declared.max] : ['outputTokens', workload.outputTokens.max];
  const longest = workload.promptTokens.max + lengthMax;
  if (config && longest > config.nCtx) {
    problems.push(
      `the longest request (workload.promptTokens ${workload.promptTokens.max} + workload.${lengthKey} ${lengthMax} = ${longest} tokens) exceeds ${settings.model}'s context of ${config.nCtx} tokens`,
    );
  }
  const budget = kvBudgetBlocks(settings);
  if (config && budget) {
    const { blocks, blockBytes } = budget;
    // Contiguous reservation holds the declared maximum from admission on; paged only what is written.
    const held = engine.kvReservation === 'contiguous' ? Math.min(longest - 1, config.nCtx) : workload.promptTokens.max + workload.outputTokens.max;
    const needed = Math.ceil(held / engine.blockSize);
    if (blocks < needed) {
      problems.push(
        `engine.kvBudgetMB (${engine.kvBudgetMB}) holds ${blocks} blocks of ${engine.blockSize} tokens; the longest request needs ${needed}${engine.kvReservation === 'contiguous' ? ' reserved up front' : ''} (at least ${((needed * blockBytes) / (1024 * 1024)).toPrecision(3)} MiB)`,
      );
    }
  }
  if (engine.chunkSize > engine.maxBatchedTokens) {
    problems.push(`engine.chunkSize (${engine.chunkSize}) is larger than engine.maxBatchedTokens (${engine.maxBatchedTokens})`);
  }
  return problems;
}
