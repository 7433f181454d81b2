// The benchmark report as text, in the layout of seed 003's streaming benchmark (one
// p50/p95/p99 line per metric, the TTFT breakdown next to TTFT), then KV and scheduler lines.
import { kernelProfileLines } from '../kernel-profile-text.ts';
import type { Percentiles } from '../metrics/percentile.ts';
import type { BenchmarkReport } from './runner.ts';

const ms = (p: Percentiles) => `${fixed(p.p50)}/${fixed(p.p95)}/${fixed(p.p99)}`;
const perStep = (totalMs: number, steps: number) => (steps > 0 ? totalMs / steps : Number.NaN);
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** TPOT and ITL need a second token: with one output token a request has none ("n/a/n/a/n/a ms" read as a fault). */
const betweenTokens = (p: Percentiles, unit: string) => (Number.isFinite(p.p50) ? `${ms(p)} ${unit}` : 'n/a (no request had a second output token)');

export interface ReportTextOptions {
  /** Leave out the Model and Backend lines (a lab's report says them once, above its tables). */
  omitModelAndBackend?: boolean;
}

/** "  (1679 stopped by the interrupt, 2 failed)": what did not complete, and why. */
function requestOutcomes(m: BenchmarkReport['metrics']): string {
  const aborted = m.aborted ?? 0;
  const parts = [...(aborted > 0 ? [`${aborted} stopped by the interrupt`] : []), ...(m.failed > 0 ? [`${m.failed} failed`] : [])];
  return parts.length > 0 ? `  (${parts.join(', ')})` : '';
}

export function formatReport(report: BenchmarkReport, options: ReportTextOptions = {}): string {
  const { engine: e, metrics: m, kv, scheduler: s } = report;
  const sched = e.scheduler;
  const lines = [
    `=== streaming benchmark${report.partial ? ' (partial: aborted)' : ''} ===`,
    ...(options.omitModelAndBackend
      ? []
      : [`Model: ${e.model.name}, ${e.weights}`, `Backend: ${e.description ?? `${e.backend}, ${e.device}`}${e.clock === 'virtual' ? '  [virtual clock]' : ''}`]),
    `Scheduler: ${sched.policy}  max batched tokens ${sched.maxBatchedTokens}  max seqs ${sched.maxNumSeqs}  ` +
      `prefill admission ${sched.prefillMaxBatch}/step  chunk ${sched.chunkSize === 0 ? 'off' : sched.chunkSize}  KV ${sched.kvReservation}`,
    `Runs: ${report.warmupRuns} warm-up, ${report.repeatRuns} measured`,
    `Requests: ${m.requests}${requestOutcomes(m)}`,
    `Prompt tokens (total): ${m.promptTokens}`,
    `Completion tokens (total): ${m.completionTokens}`,
    `Submit wall: ${fixed(m.submitWallMs / 1000, 6)} s`,
    `add_request latency p50/p95/p99: ${ms(m.addRequestMs)} ms`,
    `Queue wait p50/p95/p99: ${ms(m.queueWaitMs)} ms`,
    `Prefill->first token p50/p95/p99: ${ms(m.prefillToFirstTokenMs)} ms`,
    `TTFT p50/p95/p99: ${ms(m.ttftMs)} ms`,
    `TPOT p50/p95/p99: ${betweenTokens(m.tpotMs, 'ms/token')}`,
    `ITL p50/p95/p99: ${betweenTokens(m.itlMs, 'ms')}`,
    `Latency p50/p95/p99: ${ms(m.latencyMs)} ms`,
    `Throughput (completion,total): ${fixed(m.outputTokensPerS)}, ${fixed(m.totalTokensPerS)} tokens/s  ${fixed(m.requestsPerS)} requests/s`,
  ];
  if (m.slo !== null && m.goodputRequestsPerS !== null) {
    const bounds = [
      m.slo.ttftMs !== undefined ? `TTFT <= ${m.slo.ttftMs} ms` : '',
      m.slo.tpotMs !== undefined ? `TPOT <= ${m.slo.tpotMs} ms` : '',
    ].filter(Boolean);
    lines.push(`Goodput (${bounds.join(', ')}): ${fixed(m.goodputRequestsPerS)} requests/s`);
  }
  lines.push(
    `KV cache: ${kv.numBlocks} blocks x ${kv.blockSize} tokens  peak used ${kv.peakUsedBlocks}  ` +
      `cached at end ${kv.cachedBlocks}  prefix hit rate ${fixed(kv.prefixHitRate * 100, 1)}%  wasted slots (mean) ${fixed(kv.meanWastedSlots, 1)}`,
    `KV use (${sched.kvReservation}): reserved blocks mean ${fixed(kv.meanReservedBlocks, 1)} peak ${kv.peakUsedBlocks}  ` +
      `used slots mean ${fixed(kv.meanUsedSlots, 1)}  utilization ${fixed(kv.utilization * 100, 1)}%  fragmentation ${fixed(kv.fragmentation * 100, 1)}%`,
    `Steps: ${s.steps}  tokens/step ${fixed(s.meanBatchTokens, 1)}  running mean ${fixed(s.meanRunning, 1)} max ${s.maxRunning}  ` +
      `waiting max ${s.maxWaiting}  preemptions ${s.preemptions}  rejected ${s.rejected}`,
    // Totals over the measured steps, and the mean of one step (what the labs ask about).
    `Step time: forward ${fixed(s.forwardMs)} ms total, ${fixed(perStep(s.forwardMs, s.steps))} ms/step mean  ` +
      `scheduler overhead ${fixed(s.overheadMs)} ms total, ${fixed(perStep(s.overheadMs, s.steps), 3)} ms/step mean` +
      (s.forwardMs > 0 && e.clock === 'monotonic' ? ` (${fixed((s.overheadMs / s.forwardMs) * 100, 1)}% of forward)` : ''),
  );
  if (report.profile) lines.push('', ...kernelProfileLines(report.profile));
  return lines.join('\n');
}
