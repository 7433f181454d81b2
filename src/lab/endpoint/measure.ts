// The numbers of an endpoint run under the lab's metric names, with `vllm bench serve`'s
// definitions: TTFT from just before sending to the first chunk with text; TPOT per request
// = (latency - TTFT) / (output tokens - 1), output tokens as the server's usage counts them;
// ITL = the gaps between chunks, every request pooled; percentiles interpolated linearly.
// The server-side split of TTFT comes from /metrics histogram deltas (server-histograms.ts).
import { percentiles, type Percentiles } from '../../engine/index.ts';
import { isRequestSideMetric, metricCollector, type MeasuredMetrics, type MetricBounds, type ServerFigures } from '../checks.ts';
import { bucketQuantile, histogramDelta, serverHistograms, type BucketQuantile, type Histogram, type Scrape, type ServerHistogramKey } from './server-histograms.ts';
import type { RequestOutcome } from './stream-client.ts';

export interface MeasuredRequest {
  /** Prompt tokens known before sending, or null (then the server's usage counts them). */
  promptTokens: number | null;
  outcome: RequestOutcome;
}

export interface Slo {
  ttftMs: number;
  tpotMs: number;
}

export interface ClientSummary {
  requests: number;
  completed: number;
  failed: number;
  /** Reasons of the failed requests, most frequent first. */
  failures: Array<{ reason: string; count: number }>;
  promptTokens: number;
  outputTokens: number;
  durationMs: number;
  ttftMs: Percentiles;
  tpotMs: Percentiles;
  itlMs: Percentiles;
  latencyMs: Percentiles;
  requestsPerS: number;
  outputTokensPerS: number;
  totalTokensPerS: number;
  goodputRequestsPerS: number | null;
}

export function summarizeRequests(requests: readonly MeasuredRequest[], slo: Slo): ClientSummary {
  const ttft: number[] = [];
  const tpot: number[] = [];
  const itl: number[] = [];
  const latency: number[] = [];
  const failures = new Map<string, number>();
  let promptTokens = 0;
  let outputTokens = 0;
  let good = 0;
  let first = Infinity;
  let last = -Infinity;
  for (const { promptTokens: known, outcome } of requests) {
    first = Math.min(first, outcome.sentAt);
    last = Math.max(last, outcome.endedAt);
    if (outcome.error !== null) {
      failures.set(outcome.error, (failures.get(outcome.error) ?? 0) + 1);
      continue;
    }
    const requestTtft = outcome.chunkTimes[0] - outcome.sentAt;
    const requestLatency = outcome.endedAt - outcome.sentAt;
    const requestTpot = outcome.outputTokens > 1 ? (requestLatency - requestTtft) / (outcome.outputTokens - 1) : null;
    ttft.push(requestTtft);
    latency.push(requestLatency);
    if (requestTpot !== null) tpot.push(requestTpot);
    for (let i = 1; i < outcome.chunkTimes.length; i++) itl.push(outcome.chunkTimes[i] - outcome.chunkTimes[i - 1]);
    promptTokens += known ?? outcome.usagePromptTokens ?? 0;
    outputTokens += outcome.outputTokens;
    const meets = (slo.ttftMs <= 0 || requestTtft <= slo.ttftMs) && (slo.tpotMs <= 0 || requestTpot === null || requestTpot <= slo.tpotMs);
    if (meets) good += 1;
  }
  const completed = ttft.length;
  const durationMs = requests.length > 0 ? last - first : 0;
  const perSecond = (n: number) => (durationMs > 0 ? (n * 1000) / durationMs : 0);
  return {
    requests: requests.length,
    completed,
    failed: requests.length - completed,
    failures: [...failures].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count),
    promptTokens,
    outputTokens,
    durationMs,
    ttftMs: percentiles(ttft),
    tpotMs: percentiles(tpot),
    itlMs: percentiles(itl),
    latencyMs: percentiles(latency),
    requestsPerS: perSecond(completed),
    outputTokensPerS: perSecond(outputTokens),
    totalTokensPerS: perSecond(promptTokens + outputTokens),
    goodputRequestsPerS: slo.ttftMs > 0 || slo.tpotMs > 0 ? perSecond(good) : null,
  };
}

export interface ServerSeries {
  /** vLLM's histogram name. */
  name: string;
  /** Requests the histogram counted during the run. */
  count: number;
  /** Estimates in ms, with the bucket (ms) each percentile falls in. */
  p50: BucketQuantile;
  p95: BucketQuantile;
  p99: BucketQuantile;
  /** Exact: the histogram's sum over its count. */
  meanMs: number;
}

export type ServerSide = { available: true; series: Partial<Record<ServerHistogramKey, ServerSeries>> } | { available: false; reason: string };

const toMs = (q: BucketQuantile): BucketQuantile => ({ value: q.value * 1000, lower: q.lower * 1000, upper: q.upper * 1000 });

/** The split of the run's TTFT on the server, from two scrapes; says why when there is none. */
export function serverSide(before: Scrape | null | 'unreachable', after: Scrape | null | 'unreachable'): ServerSide {
  if (before !== null && before !== 'unreachable' && (after === null || after === 'unreachable')) return { available: false, reason: "the server's /metrics, read before the run, could not be read after it (did the server stop?)" };
  // A server stopped during the warm-up answers neither scrape: that says nothing about its
  // /metrics (the failed requests below say what happened).
  if (before === 'unreachable' || after === 'unreachable') return { available: false, reason: 'the server could not be reached for its /metrics (did it stop during the run?)' };
  if (before === null || after === null) return { available: false, reason: 'the server offers no Prometheus /metrics with histograms' };
  const series: Partial<Record<ServerHistogramKey, ServerSeries>> = {};
  for (const [key, name] of Object.entries(serverHistograms) as Array<[ServerHistogramKey, string]>) {
    const delta: Histogram | null = histogramDelta(before.get(name), after.get(name));
    if (delta === null || delta.count <= 0) continue;
    const [p50, p95, p99] = [0.5, 0.95, 0.99].map((q) => toMs(bucketQuantile(delta, q)!));
    series[key] = { name, count: delta.count, p50, p95, p99, meanMs: (delta.sum / delta.count) * 1000 };
  }
  if (series.queue === undefined && series.prefill === undefined) {
    return { available: false, reason: `the server's /metrics has no ${serverHistograms.queue} or ${serverHistograms.prefill} counts for this run (not vLLM's metric names?)` };
  }
  return { available: true, series };
}

/**
 * Whether a bucket estimate says more than a bound: in the first bucket (0, edge] the value
 * may be anywhere down to 0, in the +Inf bucket anywhere up. vLLM's queue and prefill
 * histograms start at 0.3 s, so a fast server's split is only "under 300 ms": such a
 * percentile is shown as a bound and left out of the metrics (a check on it is not judged).
 */
export function resolved(q: BucketQuantile): boolean {
  return q.lower > 0 && Number.isFinite(q.upper);
}

/** The server's queue and prefill series under the lab's metric names (none without its histograms). */
function serverSeries(server: ServerSide): Array<[metric: string, series: ServerSeries]> {
  if (!server.available) return [];
  const named: Array<[string, ServerSeries | undefined]> = [
    ['queue_wait', server.series.queue],
    ['prefill_first', server.series.prefill],
  ];
  return named.filter((entry): entry is [string, ServerSeries] => entry[1] !== undefined);
}

const PERCENTILES = ['p50', 'p95', 'p99'] as const;

/** Both sides under the lab's names: checks such as queue_wait.p99 / ttft.p99 read them. */
export function endpointMetrics(client: ClientSummary, server: ServerSide): MeasuredMetrics {
  const { out, put, requestSide } = metricCollector();
  requestSide(client);
  // Bucket estimates: the report says which bucket each lies in (endpointBounds).
  for (const [metric, s] of serverSeries(server)) {
    for (const p of PERCENTILES) if (resolved(s[p])) put(`${metric}.${p}`, s[p].value);
    put(`${metric}.mean`, s.meanMs);
  }
  const step = client.itlMs.p50;
  if (step > 0) put('itl.spike', client.itlMs.p99 / step);
  return out;
}

/**
 * Everything the server measured itself, its TTFT included, under the lab's names: a check
 * dividing a server figure by one the client also measures (queue_wait.p99 / ttft.p99) reads
 * both from here, one clock, rather than the server's queue wait over the client's TTFT.
 */
export function endpointServerFigures(server: ServerSide): ServerFigures {
  const metrics: MeasuredMetrics = {};
  const bounds: MetricBounds = {};
  const named = [...serverSeries(server), ...(server.available && server.series.ttft ? [['ttft', server.series.ttft] as [string, ServerSeries]] : [])];
  for (const [metric, s] of named) {
    for (const p of PERCENTILES) {
      if (!resolved(s[p])) continue;
      metrics[`${metric}.${p}`] = s[p].value;
      bounds[`${metric}.${p}`] = { lower: s[p].lower, upper: s[p].upper };
    }
    if (Number.isFinite(s.meanMs)) metrics[`${metric}.mean`] = s.meanMs;
  }
  return { metrics, bounds };
}

/** The bucket each server-side percentile of endpointMetrics lies in: a check is judged on all of it. */
export function endpointBounds(server: ServerSide): MetricBounds {
  const bounds: MetricBounds = {};
  for (const [metric, s] of serverSeries(server)) {
    for (const p of PERCENTILES) if (resolved(s[p])) bounds[`${metric}.${p}`] = { lower: s[p].lower, upper: s[p].upper };
  }
  return bounds;
}

/** The lab's names of the server's series, as endpointMetrics puts them. */
const SERVER_FAMILIES: Record<string, ServerHistogramKey> = { queue_wait: 'queue', prefill_first: 'prefill' };

const msText = (ms: number) => `${Number(ms.toPrecision(4))} ms`;

/**
 * Why a metric an expectation names has no value in a run against a server, in place of "was
 * not measured": against vLLM, whose queue and prefill buckets start at 0.3 s, the ttft-breakdown
 * checks said "queue_wait.p99 was not measured" beside a table showing it "<=300.00"; against any
 * server, batch-size-sweep's "decode.tokens_per_s was not measured" read as a fault of the run.
 * Null where the metric is the client's own (its absence is said as before).
 */
export function unmeasuredOnServer(metric: string, server: ServerSide): string | null {
  const [family, stat] = metric.split('.');
  const key = SERVER_FAMILIES[family];
  if (key === undefined) {
    if (isRequestSideMetric(metric)) return null;
    return `${metric} is counted inside kb's own engine, and a server's engine is not visible over --endpoint`;
  }
  if (!server.available) return `${metric} comes from the server's /metrics: ${server.reason}`;
  const series = server.series[key];
  if (series === undefined) return `${metric} comes from the server's ${serverHistograms[key]}, which counted none of this run's requests`;
  if (stat === 'p50' || stat === 'p95' || stat === 'p99') {
    const q = series[stat];
    if (!resolved(q)) {
      return q.lower <= 0
        ? `${metric} is only known to be <= ${msText(q.upper)}, the first bucket of the server's ${serverHistograms[key]}: too coarse to judge`
        : `${metric} is only known to be over ${msText(q.lower)}, in the last bucket of the server's ${serverHistograms[key]}: too coarse to judge`;
    }
  }
  return null;
}
