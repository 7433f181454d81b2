// One request's life as timestamps on the engine clock (ms), and the per-request metrics
// DESIGN.md defines from them.

export interface RequestTimeline {
  promptTokens: number;
  /** Just before and just after submit() (the client side of adding a request). */
  submitStart: number;
  submitEnd: number;
  /** First scheduled for prefill. */
  admit: number | null;
  /** Every output token's arrival; the first is first_token. */
  tokenTimes: number[];
  finish: number | null;
  error: string | null;
}

export function newTimeline(promptTokens: number, submitStart: number): RequestTimeline {
  return { promptTokens, submitStart, submitEnd: submitStart, admit: null, tokenTimes: [], finish: null, error: null };
}

export interface RequestMetrics {
  addRequestMs: number;
  queueWaitMs: number;
  prefillToFirstTokenMs: number;
  ttftMs: number;
  /** null with fewer than two output tokens. */
  tpotMs: number | null;
  latencyMs: number;
  outputTokens: number;
}

/** The metrics of a request that finished with at least one token; null otherwise. */
export function requestMetrics(t: RequestTimeline): RequestMetrics | null {
  if (t.error !== null || t.admit === null || t.finish === null || t.tokenTimes.length === 0) return null;
  const firstToken = t.tokenTimes[0];
  const n = t.tokenTimes.length;
  return {
    addRequestMs: t.submitEnd - t.submitStart,
    queueWaitMs: t.admit - t.submitEnd,
    prefillToFirstTokenMs: firstToken - t.admit,
    ttftMs: firstToken - t.submitStart,
    tpotMs: n > 1 ? (t.finish - firstToken) / (n - 1) : null,
    latencyMs: t.finish - t.submitStart,
    outputTokens: n,
  };
}

/** Whether the stamps are in order: submit_start <= submit_end <= admit <= first token <= ... <= finish. */
export function timelineInOrder(t: RequestTimeline): boolean {
  const stamps = [t.submitStart, t.submitEnd, t.admit ?? Number.NaN, ...t.tokenTimes, t.finish ?? Number.NaN];
  for (let i = 1; i < stamps.length; i++) if (!(stamps[i - 1] <= stamps[i])) return false;
  return true;
}
