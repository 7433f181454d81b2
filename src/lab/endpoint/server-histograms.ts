// The server's side of TTFT, from its Prometheus /metrics: histograms are cumulative, so
// the requests of one run are the difference of two scrapes, bucket by bucket. Percentiles
// then come from bucket counts, interpolated linearly inside the bucket that holds the rank
// (as Prometheus's histogram_quantile does): a value is only known to lie between two edges.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { httpCall } from './http-call.ts';

/** vLLM's names (docs/design/metrics.md); kb serve uses the same. */
export const serverHistograms = {
  queue: 'vllm:request_queue_time_seconds',
  prefill: 'vllm:request_prefill_time_seconds',
  ttft: 'vllm:time_to_first_token_seconds',
  decode: 'vllm:request_decode_time_seconds',
  e2e: 'vllm:e2e_request_latency_seconds',
} as const;
export type ServerHistogramKey = keyof typeof serverHistograms;

/** A histogram summed over its label sets (model_name, engine): upper edges ascending, cumulative counts. */
export interface Histogram {
  edges: number[];
  cumulative: number[];
  count: number;
  sum: number;
}

export type Scrape = Map<string, Histogram>;

/**
 * The histograms of a /metrics text, by name, each summed over its label sets (keeping only
 * `model_name=model` when a series names its model). The parser reads every sample line with
 * its labels; its own histogram folding drops the `_count`/`_sum` of labelled series and
 * merges label sets, so the `# TYPE` lines are left out and the series are put together here.
 */
export function parseHistograms(text: string, model?: string): Scrape {
  const histogramNames = new Set([...text.matchAll(/^#\s*TYPE\s+(\S+)\s+histogram\s*$/gm)].map((m) => m[1]));
  const families = parsePrometheusTextFormat(text.replace(/^#\s*TYPE\s.*$/gm, ''));
  // Without types, one label set's _bucket, _count, _sum lines come back as families of their
  // own, again for each label set: gather the samples by name.
  const samples = new Map<string, Array<{ value?: string; labels?: Record<string, string> }>>();
  for (const family of families) {
    const kept = family.metrics.filter((m) => model === undefined || m.labels?.model_name === undefined || m.labels.model_name === model);
    samples.set(family.name, [...(samples.get(family.name) ?? []), ...kept]);
  }
  const out: Scrape = new Map();
  for (const name of histogramNames) {
    const buckets = samples.get(`${name}_bucket`) ?? [];
    const total = (suffix: string) => (samples.get(`${name}${suffix}`) ?? []).reduce((sum, m) => sum + Number(m.value ?? 0), 0);
    const byEdge = new Map<number, number>();
    for (const m of buckets) {
      const edge = Number(m.labels?.le === '+Inf' ? Infinity : m.labels?.le);
      if (!Number.isNaN(edge)) byEdge.set(edge, (byEdge.get(edge) ?? 0) + Number(m.value ?? 0));
    }
    if (byEdge.size === 0) continue;
    const edges = [...byEdge.keys()].sort((a, b) => a - b);
    out.set(name, { edges, cumulative: edges.map((edge) => byEdge.get(edge)!), count: total('_count'), sum: total('_sum') });
  }
  return out;
}

/** after - before, bucket by bucket; null when the histogram is missing or was reset between scrapes. */
export function histogramDelta(before: Histogram | undefined, after: Histogram | undefined): Histogram | null {
  if (!after) return null;
  if (!before) return after;
  const cumulative = after.edges.map((edge, i) => after.cumulative[i] - (before.cumulative[before.edges.indexOf(edge)] ?? 0));
  const count = after.count - before.count;
  if (count < 0 || cumulative.some((c) => c < 0)) return null;
  return { edges: after.edges, cumulative, count, sum: after.sum - before.sum };
}

export interface BucketQuantile {
  /** The estimate, seconds (linear inside the bucket). */
  value: number;
  /** The edges of the bucket the rank falls in: all the histogram really knows. */
  lower: number;
  upper: number;
}

/**
 * The q-quantile (0..1) of a histogram, as histogram_quantile computes it: find the bucket
 * holding rank q * count, interpolate between its lower and upper edges. A rank in the +Inf
 * bucket returns the highest finite edge. Null for an empty histogram.
 */
export function bucketQuantile(h: Histogram, q: number): BucketQuantile | null {
  if (h.count <= 0 || h.edges.length === 0) return null;
  const rank = q * h.count;
  let index = h.cumulative.findIndex((c) => c >= rank);
  if (index < 0) index = h.edges.length - 1;
  const upper = h.edges[index];
  const lower = index === 0 ? 0 : h.edges[index - 1];
  if (!Number.isFinite(upper)) return { value: lower, lower, upper };
  const below = index === 0 ? 0 : h.cumulative[index - 1];
  const inBucket = h.cumulative[index] - below;
  const value = inBucket > 0 ? lower + ((upper - lower) * (rank - below)) / inBucket : upper;
  return { value, lower, upper };
}

/** GET /metrics; null when the server has none (404, not Prometheus text), 'unreachable' when nothing answered. */
export async function scrapeHistograms(root: string, headers: Record<string, string>, model?: string): Promise<Scrape | null | 'unreachable'> {
  let response;
  try {
    response = await httpCall(`${root}/metrics`, { headers, timeoutMs: 10_000 });
  } catch {
    // No answer at all (refused, reset, timed out): the server is gone, which says nothing
    // about whether it has /metrics; the report must not claim it has none.
    return 'unreachable';
  }
  if (!response.ok) return null;
  const scrape = parseHistograms(response.text, model);
  return scrape.size > 0 ? scrape : null;
}
