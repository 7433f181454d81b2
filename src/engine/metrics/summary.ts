// A benchmark's numbers from its requests' timelines: the seed-003 breakdown (queue wait vs
// prefill->first token inside TTFT), TPOT, pooled ITL, latency, throughput and goodput.
import { type Percentiles, percentiles } from './percentile.ts';
import { type RequestMetrics, type RequestTimeline, requestMetrics } from './timeline.ts';

/** Service-level objectives for goodput; a missing bound is not checked. */
export interface Slo {
  ttftMs?: number;
  tpotMs?: number;
}

export interface MetricsSummary {
  requests: number;
  completed: number;
  /** Ended by an error, not by the run being stopped. */
  failed: number;
  /** Stopped when the run was (Ctrl-C): neither completed nor failed. Absent in reports stored before it was counted. */
  aborted?: number;
  promptTokens: number;
  completionTokens: number;
  /** First submit_start to last submit_end. */
  submitWallMs: number;
  /** First submit_start to last finish: the throughput window. */
  durationMs: number;
  addRequestMs: Percentiles;
  queueWaitMs: Percentiles;
  prefillToFirstTokenMs: Percentiles;
  ttftMs: Percentiles;
  tpotMs: Percentiles;
  itlMs: Percentiles;
  latencyMs: Percentiles;
  outputTokensPerS: number;
  totalTokensPerS: number;
  requestsPerS: number;
  slo: Slo | null;
  /** Requests/s that met every SLO (null without SLOs). */
  goodputRequestsPerS: number | null;
}

export function meetsSlo(m: RequestMetrics, slo: Slo): boolean {
  if (slo.ttftMs !== undefined && m.ttftMs > slo.ttftMs) return false;
  if (slo.tpotMs !== undefined && m.tpotMs !== null && m.tpotMs > slo.tpotMs) return false;
  return true;
}

export function summarize(timelines: readonly RequestTimeline[], slo: Slo | null = null): MetricsSummary {
  const done: RequestMetrics[] = [];
  const finished: RequestTimeline[] = [];
  let promptTokens = 0;
  let firstSubmit = Infinity;
  let lastSubmitEnd = -Infinity;
  let lastFinish = -Infinity;
  let gaps = 0;
  let aborted = 0;
  for (const t of timelines) {
    if (t.error === 'aborted') aborted++;
    firstSubmit = Math.min(firstSubmit, t.submitStart);
    lastSubmitEnd = Math.max(lastSubmitEnd, t.submitEnd);
    const m = requestMetrics(t);
    if (m === null) continue;
    done.push(m);
    finished.push(t);
    promptTokens += t.promptTokens;
    lastFinish = Math.max(lastFinish, t.finish!);
    gaps += t.tokenTimes.length - 1;
  }
  // Every gap between two tokens, pooled, in a typed array of the exact size: a sim run of
  // 1,000,000 requests has 63,000,000 of them, too many to grow an array by pushing.
  const itl = new Float64Array(gaps);
  let g = 0;
  for (const t of finished) for (let i = 1; i < t.tokenTimes.length; i++) itl[g++] = t.tokenTimes[i] - t.tokenTimes[i - 1];
  const completionTokens = done.reduce((sum, m) => sum + m.outputTokens, 0);
  const durationMs = done.length > 0 ? lastFinish - firstSubmit : 0;
  const perSecond = (count: number) => (durationMs > 0 ? (count * 1000) / durationMs : 0);
  const goodCount = slo === null ? 0 : done.filter((m) => meetsSlo(m, slo)).length;
  return {
    requests: timelines.length,
    completed: done.length,
    failed: timelines.length - done.length - aborted,
    aborted,
    promptTokens,
    completionTokens,
    submitWallMs: timelines.length > 0 ? lastSubmitEnd - firstSubmit : 0,
    durationMs,
    addRequestMs: percentiles(done.map((m) => m.addRequestMs)),
    queueWaitMs: percentiles(done.map((m) => m.queueWaitMs)),
    prefillToFirstTokenMs: percentiles(done.map((m) => m.prefillToFirstTokenMs)),
    ttftMs: percentiles(done.map((m) => m.ttftMs)),
    tpotMs: percentiles(done.flatMap((m) => (m.tpotMs === null ? [] : [m.tpotMs]))),
    itlMs: percentiles(itl),
    latencyMs: percentiles(done.map((m) => m.latencyMs)),
    outputTokensPerS: perSecond(completionTokens),
    totalTokensPerS: perSecond(completionTokens + promptTokens),
    requestsPerS: perSecond(done.length),
    slo,
    goodputRequestsPerS: slo === null ? null : perSecond(goodCount),
  };
}
