// Benchmark workloads: how many requests, how long their prompts and outputs are (and the
// limit they declare), when they arrive, and whether their prompts share a prefix. Seeded, so a run can be repeated.
import { readFileSync } from 'node:fs';
import { Random } from './workload-random.ts';

/** A fixed length, a uniform range, or a list (e.g. read from a trace file) used in turn. */
export type LengthSpec = number | { min: number; max: number } | { values: readonly number[] };

export type ArrivalSpec =
  | { kind: 'burst' }
  /** Exponential gaps with mean 1/rate (rate in requests/s). */
  | { kind: 'poisson'; rate: number }
  /** Gamma gaps with mean 1/rate; burstiness 1 is Poisson, below 1 burstier, above 1 steadier (vLLM's convention). */
  | { kind: 'gamma'; rate: number; burstiness: number };

export interface WorkloadSpec {
  numRequests: number;
  promptLength: LengthSpec;
  outputLength: LengthSpec;
  /**
   * The maxNewTokens each request declares (default: its output length). When it is larger,
   * the request still stops at its output length, as at a stop token: the gap between the
   * two is what reserving memory for the maximum up front wastes.
   */
  maxNewTokens?: LengthSpec;
  arrival: ArrivalSpec;
  /** Tokens every prompt starts with (0: every prompt is unique from its first token). */
  sharedPrefixLength?: number;
  seed?: number;
}

export interface WorkloadRequest {
  promptIds: number[];
  maxNewTokens: number;
  /** Where the output ends when that is before maxNewTokens. */
  stopAfterTokens?: number;
  /** Offset from the start of the run, ms. */
  arrivalMs: number;
}

export function generateWorkload(spec: WorkloadSpec, vocabSize: number): WorkloadRequest[] {
  const problem = workloadProblem(spec);
  if (problem !== null) throw new RangeError(`workload: ${problem}`);
  const random = new Random(spec.seed ?? 0);
  // The last id of GPT-2's vocabulary is <|endoftext|>; prompts stay clear of it.
  const tokenLimit = Math.max(1, vocabSize - 1);
  const prefixLength = spec.sharedPrefixLength ?? 0;
  const prefix = Array.from({ length: prefixLength }, () => random.int(0, tokenLimit - 1));
  const requests: WorkloadRequest[] = [];
  let arrival = 0;
  for (let i = 0; i < spec.numRequests; i++) {
    const promptLength = Math.max(drawLength(spec.promptLength, i, random), prefixLength + 1);
    const prompt = prefix.slice();
    // The first token after the shared prefix differs between requests (a prime stride walks
    // the ids without repeating for GPT-2's vocabulary), so prompts differ even when one token long.
    prompt.push((i * 7919 + 1) % tokenLimit);
    while (prompt.length < promptLength) prompt.push(random.int(0, tokenLimit - 1));
    const outputLength = drawLength(spec.outputLength, i, random);
    const maxNewTokens = spec.maxNewTokens === undefined ? outputLength : drawLength(spec.maxNewTokens, i, random);
    requests.push({
      promptIds: prompt,
      maxNewTokens,
      ...(outputLength < maxNewTokens ? { stopAfterTokens: outputLength } : {}),
      arrivalMs: arrival,
    });
    arrival += gapMs(spec.arrival, random);
  }
  return requests;
}

function drawLength(spec: LengthSpec, index: number, random: Random): number {
  if (typeof spec === 'number') return spec;
  if ('values' in spec) return spec.values[index % spec.values.length];
  return random.int(spec.min, spec.max);
}

function gapMs(arrival: ArrivalSpec, random: Random): number {
  switch (arrival.kind) {
    case 'burst':
      return 0;
    case 'poisson':
      return random.exponential(1000 / arrival.rate);
    case 'gamma':
      // Mean shape * scale = 1000 / rate.
      return random.gamma(arrival.burstiness, 1000 / arrival.rate / arrival.burstiness);
  }
}

export function workloadProblem(spec: WorkloadSpec): string | null {
  if (!Number.isInteger(spec.numRequests) || spec.numRequests < 1) return `numRequests must be an integer >= 1 (got ${spec.numRequests})`;
  for (const key of ['promptLength', 'outputLength', 'maxNewTokens'] as const) {
    const length = spec[key];
    const problem = length === undefined ? null : lengthProblem(length);
    if (problem !== null) return `${key}: ${problem}`;
  }
  const prefix = spec.sharedPrefixLength ?? 0;
  if (!Number.isInteger(prefix) || prefix < 0) return `sharedPrefixLength must be an integer >= 0 (got ${prefix})`;
  const a = spec.arrival;
  if (a.kind !== 'burst' && a.kind !== 'poisson' && a.kind !== 'gamma') return `arrival kind must be burst, poisson or gamma`;
  if (a.kind !== 'burst' && !(a.rate > 0 && Number.isFinite(a.rate))) return `arrival rate must be > 0 requests/s (got ${a.rate})`;
  if (a.kind === 'gamma' && !(a.burstiness > 0 && Number.isFinite(a.burstiness))) return `burstiness must be > 0 (got ${a.burstiness})`;
  return null;
}

function lengthProblem(spec: LengthSpec): string | null {
  const ok = (n: number) => Number.isInteger(n) && n >= 1;
  if (typeof spec === 'number') return ok(spec) ? null : `must be an integer >= 1 (got ${spec})`;
  if ('values' in spec) {
    if (spec.values.length === 0) return 'the list of lengths is empty';
    const bad = spec.values.find((n) => !ok(n));
    return bad === undefined ? null : `every length must be an integer >= 1 (got ${bad})`;
  }
  if (!ok(spec.min) || !ok(spec.max) || spec.min > spec.max) return `needs integers 1 <= min <= max (got ${spec.min}..${spec.max})`;
  return null;
}

/** Lengths from a file: one per line (blank lines and # comments skipped), or a JSON array. */
export function readLengthsFile(path: string): number[] {
  const text = readFileSync(path, 'utf8');
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    const values: unknown = JSON.parse(trimmed);
    if (!Array.isArray(values) || !values.every((v) => Number.isInteger(v) && v >= 1)) {
      throw new Error(`${path}: expected a JSON array of integers >= 1`);
    }
    return values as number[];
  }
  const values: number[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const content = line.replace(/#.*/, '').trim();
    if (content === '') return;
    const value = Number(content);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${path}:${index + 1}: "${content}" is not an integer >= 1`);
    values.push(value);
  });
  if (values.length === 0) throw new Error(`${path}: no lengths`);
  return values;
}
