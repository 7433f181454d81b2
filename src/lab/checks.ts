// The `expect:` language of a lab file. One check reads as a sentence:
//
//   - metric: queue_wait.p99 / ttft.p99     # a metric, or the ratio of two
//     op: ">="                              # >=, >, <=, <
//     value: 0.8
//     say: queue wait is at least 80% of TTFT p99
//
// A metric is a name from the lab metric catalogue (metrics.ts). In a sweep, `name@label`
// picks the point whose swept value reads `label` (ttft.p95@static); a check with no `@`
// must hold at every point.
import { isLabMetric, isSweepMetric, labMetricNames } from './metrics.ts';
import type { Percentiles } from '../engine/index.ts';

export const checkOps = ['>=', '>', '<=', '<'] as const;
export type CheckOp = (typeof checkOps)[number];

export interface MetricTerm {
  metric: string;
  /** The sweep point's label, or null for "this run" (or every point of a sweep). */
  at: string | null;
}

export interface CheckSpec {
  /** The expression as written. */
  text: string;
  numerator: MetricTerm;
  denominator: MetricTerm | null;
  op: CheckOp;
  value: number;
  say: string;
}

export class CheckSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckSyntaxError';
  }
}

const termPattern = /^([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)(?:@([A-Za-z0-9_.+-]+))?$/;

function parseTerm(text: string, pointLabels: readonly string[] | null): MetricTerm {
  const match = termPattern.exec(text.trim());
  if (!match) throw new CheckSyntaxError(`"${text.trim()}" is not a metric name (e.g. ttft.p99, or ttft.p99@16 in a sweep)`);
  const [, metric, at = null] = match;
  if (!isLabMetric(metric)) {
    throw new CheckSyntaxError(`unknown metric "${metric}"; known metrics: ${labMetricNames().join(', ')}`);
  }
  if (at !== null && isSweepMetric(metric)) throw new CheckSyntaxError(`"${text.trim()}": ${metric} is one number for the whole sweep; drop @${at}`);
  if (at === null && isSweepMetric(metric) && pointLabels === null) throw new CheckSyntaxError(`"${text.trim()}": ${metric} needs a sweep`);
  if (at !== null) {
    if (pointLabels === null) throw new CheckSyntaxError(`"${text.trim()}": @${at} names a sweep point, but this lab has no sweep`);
    if (!pointLabels.includes(at)) throw new CheckSyntaxError(`"${text.trim()}": no sweep point "${at}"; points: ${pointLabels.join(', ')}`);
  }
  return { metric, at };
}

/**
 * Parses one check's metric expression: `a` or `a / b`. `pointLabels` is the list of sweep
 * point labels, or null when the lab is a single run.
 */
export function parseCheck(raw: { metric: string; op: CheckOp; value: number; say: string }, pointLabels: readonly string[] | null): CheckSpec {
  const parts = raw.metric.split('/');
  if (parts.length > 2) throw new CheckSyntaxError(`"${raw.metric}": at most one "/" (a metric or a ratio of two)`);
  const numerator = parseTerm(parts[0], pointLabels);
  const denominator = parts.length === 2 ? parseTerm(parts[1], pointLabels) : null;
  return { text: raw.metric.trim().replace(/\s*\/\s*/, ' / '), numerator, denominator, op: raw.op, value: raw.value, say: raw.say };
}

/** The measured metrics of one run, or of each point of a sweep by label. */
export type MeasuredMetrics = Record<string, number>;

/** Metrics gathered under their lab names; a value that is missing or not finite is left out. */
export function metricCollector() {
  const out: MeasuredMetrics = {};
  const put = (name: string, value: number | null) => {
    if (value !== null && Number.isFinite(value)) out[name] = value;
  };
  /** name.p50, .p95, .p99 and .mean of one distribution. */
  const family = (name: string, p: Percentiles) => {
    put(`${name}.p50`, p.p50);
    put(`${name}.p95`, p.p95);
    put(`${name}.p99`, p.p99);
    put(`${name}.mean`, p.mean);
  };
  /** What a client sees of a run, whoever served it (the bundled engine or a server at --endpoint). */
  const requestSide = (r: RequestSide) => {
    family('ttft', r.ttftMs);
    family('tpot', r.tpotMs);
    family('itl', r.itlMs);
    family('latency', r.latencyMs);
    put('requests', r.requests);
    put('requests_failed', r.failed);
    put('prompt_tokens', r.promptTokens);
    put('output_tokens', r.outputTokens);
    put('duration', r.durationMs / 1000);
    put('throughput.output_tps', r.outputTokensPerS);
    put('throughput.total_tps', r.totalTokensPerS);
    put('throughput.requests_per_s', r.requestsPerS);
    put('goodput.requests_per_s', r.goodputRequestsPerS);
  };
  return { out, put, family, requestSide };
}

/** The request-side figures of a run, as the engine's report and the endpoint client both summarise them. */
export interface RequestSide {
  ttftMs: Percentiles;
  tpotMs: Percentiles;
  itlMs: Percentiles;
  latencyMs: Percentiles;
  requests: number;
  failed: number;
  promptTokens: number;
  outputTokens: number;
  durationMs: number;
  outputTokensPerS: number;
  totalTokensPerS: number;
  requestsPerS: number;
  goodputRequestsPerS: number | null;
}

/**
 * Where a metric is only known to lie in a range: a server's percentile read from its /metrics
 * histogram lies somewhere in one bucket. A check is judged only when every value in the
 * ranges gives the same verdict.
 */
export type MetricBounds = Record<string, { lower: number; upper: number }>;

/**
 * What a server measured itself (its /metrics), under the lab's names: for a run against a
 * server (--endpoint), beside what kb's client measured. A run's metrics hold the client's
 * figures and those only the server has (queue_wait.*, prefill_first.*); the server's own
 * readings of what the client also measures (its TTFT) are here alone.
 */
export interface ServerFigures {
  metrics: MeasuredMetrics;
  bounds?: MetricBounds;
}

/** The names a client measures of any run (requestSide below): the rest of a server run's figures are the server's. */
const REQUEST_SIDE_FAMILIES = ['ttft', 'tpot', 'itl', 'latency'];
const REQUEST_SIDE_SCALARS = ['requests', 'requests_failed', 'prompt_tokens', 'output_tokens', 'duration', 'throughput.output_tps', 'throughput.total_tps', 'throughput.requests_per_s', 'goodput.requests_per_s'];

export function isRequestSideMetric(name: string): boolean {
  return REQUEST_SIDE_SCALARS.includes(name) || REQUEST_SIDE_FAMILIES.includes(name.split('.')[0]);
}

export interface CheckInput {
  /** A single run's metrics; for a sweep, null. */
  single: MeasuredMetrics | null;
  singleBounds?: MetricBounds;
  /** A single run against a server: what the server measured itself. */
  singleServer?: ServerFigures;
  /** A sweep's points in order: label and metrics. */
  points: Array<{ label: string; metrics: MeasuredMetrics; bounds?: MetricBounds; server?: ServerFigures }>;
  /** A sweep's own metrics (fit, knee, SLO limit, probe), computed across its points. */
  sweep?: MeasuredMetrics;
}

export interface CheckOutcome {
  check: CheckSpec;
  /** The measured left-hand side; for a check over every point, the one furthest from passing. */
  measured: number | null;
  /** Where the measured value comes from when it is one point of several. */
  at: string | null;
  /** null: could not be evaluated (metric missing from this run, division by zero). */
  pass: boolean | null;
  problem: string | null;
  /** The metric a check could not be judged for want of, when that is its problem at the run level (no point named). */
  unmeasured?: string;
  /**
   * Where a ratio's two figures came from in a run against a server, or null when from one
   * place as ever: "both from the server's /metrics", or, where the server gives only one of
   * them, that it compares the server's figure with kb's client's (two clocks, two paths).
   */
  sides: string | null;
}

export function compare(measured: number, op: CheckOp, value: number): boolean {
  switch (op) {
    case '>=':
      return measured >= value;
    case '>':
      return measured > value;
    case '<=':
      return measured <= value;
    case '<':
      return measured < value;
  }
}

interface Known {
  value: number;
  lower: number;
  upper: number;
  /** The metric whose range this is, when it is one (for the words of an unjudged check). */
  ranged: string | null;
}

function pointOf(input: CheckInput, term: MetricTerm, point: string | null) {
  const label = term.at ?? point;
  return label === null ? { metrics: input.single, bounds: input.singleBounds, server: input.singleServer } : input.points.find((p) => p.label === label);
}

function lookup(input: CheckInput, term: MetricTerm, point: string | null, side: 'run' | 'server' = 'run'): Known | null {
  if (isSweepMetric(term.metric)) {
    const value = input.sweep?.[term.metric];
    return typeof value === 'number' && Number.isFinite(value) ? { value, lower: value, upper: value, ranged: null } : null;
  }
  const at = pointOf(input, term, point);
  const found = side === 'server' ? at?.server : at;
  const value = found?.metrics?.[term.metric];
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const range = found?.bounds?.[term.metric];
  return range ? { value, lower: range.lower, upper: range.upper, ranged: term.metric } : { value, lower: value, upper: value, ranged: null };
}

/** Of a run against a server, whether the run's figure for `term` is the server's (a client cannot see admission or prefill). */
function serverOnly(input: CheckInput, term: MetricTerm, point: string | null): boolean {
  return !isSweepMetric(term.metric) && !isRequestSideMetric(term.metric) && pointOf(input, term, point)?.server?.metrics[term.metric] !== undefined;
}

/**
 * Which figures a ratio divides in a run against a server. "queue wait >= 80% of TTFT p99"
 * took queue wait from the server's /metrics and TTFT from kb's client: two clocks, and the
 * client's TTFT adds the network and the client's own overhead. Where the server measured
 * both, both are the server's; where it measured only one, the ratio mixes them and says so.
 */
function ratioSides(input: CheckInput, check: CheckSpec, point: string | null): { side: 'run' | 'server'; sides: string | null } {
  const { numerator, denominator } = check;
  if (denominator === null) return { side: 'run', sides: null };
  const [top, bottom] = [serverOnly(input, numerator, point), serverOnly(input, denominator, point)];
  if (top === bottom) return { side: 'run', sides: null };
  const client = top ? denominator : numerator;
  if (lookup(input, client, point, 'server') !== null && lookup(input, top ? numerator : denominator, point, 'server') !== null) {
    return { side: 'server', sides: "both from the server's /metrics" };
  }
  const server = top ? numerator : denominator;
  return { side: 'run', sides: `mixed: ${server.metric} from the server's /metrics, ${client.metric} from kb's client, the server giving none usable; two clocks, the client's with the network in it` };
}

function measureAt(input: CheckInput, check: CheckSpec, point: string | null): (Known & { sides: string | null }) | { problem: string; unmeasured?: string } {
  const { side, sides } = ratioSides(input, check, point);
  const top = lookup(input, check.numerator, point, side);
  if (top === null) return { problem: `${check.numerator.metric} was not measured`, unmeasured: check.numerator.metric };
  if (!check.denominator) return { ...top, sides };
  const bottom = lookup(input, check.denominator, point, side);
  if (bottom === null) return { problem: `${check.denominator.metric} was not measured`, unmeasured: check.denominator.metric };
  if (bottom.value === 0) return { problem: `${check.denominator.metric} is 0, the ratio is undefined` };
  // Metrics are times, rates and counts (never negative): the ratio's range comes from the ends.
  const ratios = [top.lower / bottom.upper, top.upper / bottom.lower].filter((r) => !Number.isNaN(r));
  return {
    value: top.value / bottom.value,
    lower: Math.min(top.value / bottom.value, ...ratios),
    upper: Math.max(top.value / bottom.value, ...ratios),
    ranged: top.ranged ?? bottom.ranged,
    sides,
  };
}

/** How far a measured value is on the passing side (negative: failing). */
function margin(measured: number, op: CheckOp, value: number): number {
  return op === '>=' || op === '>' ? measured - value : value - measured;
}

/**
 * A bound of a range with enough digits to show which side of `value` it lies: 0.1995 or
 * 0.2004 beside 0.2 (to three places both read 0.200, as if equal to the threshold).
 */
export function boundText(bound: number, value: number): string {
  for (let digits = 3; digits <= 12; digits++) {
    const text = bound.toFixed(digits);
    if (Math.sign(Number(text) - value) === Math.sign(bound - value)) return text;
  }
  return String(bound);
}

/** How the problem of a check on the sweep's shape, not judged because --points left points out, begins. */
export const POINTS_LEFT_OUT = '--points left out';

/** The points a check names (`@label`) that this run did not measure, in the check's order. */
export function pointsNotMeasured(check: CheckSpec, measured: readonly string[]): string[] {
  const named = [check.numerator.at, check.denominator?.at ?? null].filter((at): at is string => at !== null);
  return [...new Set(named)].filter((at) => !measured.includes(at));
}

/** "and" between the last two: "8", "128 and 32", "1, 8 and 32". */
export function labelList(labels: readonly string[]): string {
  return labels.length <= 1 ? labels.join('') : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
}

export function evaluateCheck(check: CheckSpec, input: CheckInput): CheckOutcome {
  const fixed = (term: MetricTerm) => term.at !== null || isSweepMetric(term.metric);
  const pinned = fixed(check.numerator) && (check.denominator === null || fixed(check.denominator));
  const points: Array<string | null> = input.single !== null || pinned ? [null] : input.points.map((p) => p.label);
  if (points.length === 0) return { check, measured: null, at: null, pass: null, problem: 'no points were measured', sides: null };
  // A check at a point this run left out (--points 1,2,4 and decode.tokens_per_s@128) said
  // "decode.tokens_per_s was not measured", as if the metric were missing at every point.
  if (input.single === null && input.points.length > 0) {
    const measured = input.points.map((p) => p.label);
    const missing = pointsNotMeasured(check, measured);
    if (missing.length > 0) {
      const which = missing.length === 1 ? `point ${missing[0]} was` : `points ${labelList(missing)} were`;
      return { check, measured: null, at: null, pass: null, problem: `${which} not measured in this run, which measured ${labelList(measured)}`, sides: null };
    }
  }
  let worst: { measured: number; at: string | null } | null = null;
  let failedOutright = false;
  let undecided: { known: Known; at: string | null } | null = null;
  // Where the figures came from: the same at every point of a run against one server.
  let sides: string | null = null;
  for (const point of points) {
    const result = measureAt(input, check, point);
    if ('problem' in result) {
      if (point !== null) return { check, measured: null, at: point, pass: null, problem: `at ${point}: ${result.problem}`, sides: null };
      return { check, measured: null, at: null, pass: null, problem: result.problem, sides: null, ...(result.unmeasured ? { unmeasured: result.unmeasured } : {}) };
    }
    sides ??= result.sides;
    const [low, high] = [compare(result.lower, check.op, check.value), compare(result.upper, check.op, check.value)];
    // A range that straddles the expected value cannot say which side the truth is on.
    if (low !== high) undecided ??= { known: result, at: point };
    else if (!low) failedOutright = true;
    if (worst === null || margin(result.value, check.op, check.value) < margin(worst.measured, check.op, check.value)) worst = { measured: result.value, at: point };
  }
  const { measured, at } = worst!;
  if (undecided !== null && !failedOutright) {
    const { known } = undecided;
    const span = check.denominator ? ` (the ratio lies in ${boundText(known.lower, check.value)}-${boundText(known.upper, check.value)})` : '';
    return { check, measured: null, at: undecided.at, pass: null, problem: `${known.ranged} is only known to lie in a /metrics bucket${span}, either side of ${check.value}`, sides };
  }
  return { check, measured, at, pass: compare(measured, check.op, check.value), problem: null, sides };
}

export function evaluateChecks(checks: readonly CheckSpec[], input: CheckInput): CheckOutcome[] {
  return checks.map((check) => evaluateCheck(check, input));
}
