// An endpoint run as text, laid out like `vllm bench serve`'s summary: counts, throughput,
// then TTFT / TPOT / ITL / E2E, then the server's own split of TTFT and the failures.
import type { Percentiles } from '../../engine/index.ts';
import type { ClientSummary, ServerSeries, ServerSide } from './measure.ts';
import type { BucketQuantile } from './server-histograms.ts';

export interface EndpointReportHeader {
  url: string;
  model: string;
  serverVersion: string | null;
  promptSource: string;
  ignoreEos: boolean;
  maxConcurrency: number | null;
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '-');
const row = (label: string, p: Percentiles) => `${label.padEnd(28)} ${ms(p.mean).padStart(9)} ${ms(p.p50).padStart(9)} ${ms(p.p95).padStart(9)} ${ms(p.p99).padStart(9)}`;

function edges(q: BucketQuantile): string {
  return Number.isFinite(q.upper) ? `(${ms(q.lower)}, ${ms(q.upper)}]` : `> ${ms(q.lower)}`;
}

/** An estimate, or the bound that is all its bucket allows ("<=300.00" in the first bucket). */
function estimate(q: BucketQuantile): string {
  if (q.lower === 0) return `<=${ms(q.upper)}`;
  if (!Number.isFinite(q.upper)) return `>${ms(q.lower)}`;
  return ms(q.value);
}

function serverRow(label: string, s: ServerSeries): string {
  return `${label.padEnd(28)} ${ms(s.meanMs).padStart(9)} ${estimate(s.p50).padStart(9)} ${estimate(s.p95).padStart(9)} ${estimate(s.p99).padStart(9)}`;
}

export function endpointTable(header: EndpointReportHeader, client: ClientSummary, server: ServerSide): string {
  const out: string[] = [];
  out.push(`Endpoint: ${header.url}  model ${header.model}${header.serverVersion ? `  server ${header.serverVersion}` : ''}`);
  out.push(`Prompt lengths: ${header.promptSource}; output lengths ${header.ignoreEos ? 'exact (ignore_eos)' : "capped by max_tokens (the server refused ignore_eos; a stop token may end one early)"}`);
  if (header.maxConcurrency !== null) out.push(`Max concurrency: ${header.maxConcurrency} (TTFT starts when a request is sent, after waiting for a free slot on the client)`);
  out.push(`Successful requests: ${client.completed}   Failed requests: ${client.failed}   Duration: ${(client.durationMs / 1000).toFixed(2)} s`);
  out.push(`Prompt tokens: ${client.promptTokens}   Output tokens: ${client.outputTokens}`);
  out.push(
    `Throughput: ${client.requestsPerS.toFixed(2)} req/s, ${client.outputTokensPerS.toFixed(1)} output tokens/s, ${client.totalTokensPerS.toFixed(1)} total tokens/s${client.goodputRequestsPerS !== null ? `   Goodput: ${client.goodputRequestsPerS.toFixed(2)} req/s` : ''}`,
  );
  out.push(`${'Client side (ms)'.padEnd(28)} ${'mean'.padStart(9)} ${'p50'.padStart(9)} ${'p95'.padStart(9)} ${'p99'.padStart(9)}`);
  out.push(row('TTFT', client.ttftMs), row('TPOT', client.tpotMs), row('ITL (per chunk)', client.itlMs), row('E2E latency', client.latencyMs));
  if (server.available) {
    const s = server.series;
    out.push(`Server side, from /metrics histogram deltas (ms; percentiles interpolated inside buckets, so each is only known to lie in its bucket, and one in the first bucket is only a bound; means are exact):`);
    // As wide as the client's table (68 columns, within 80); each p99's bucket follows, one field each.
    out.push(`${'Server side (ms)'.padEnd(28)} ${'mean'.padStart(9)} ${'p50'.padStart(9)} ${'p95'.padStart(9)} ${'p99'.padStart(9)}`);
    const rows: Array<[string, ServerSeries | undefined]> = [['Queue time', s.queue], ['Prefill time', s.prefill], ['TTFT (server)', s.ttft], ['Decode time', s.decode]];
    const shown = rows.filter((r): r is [string, ServerSeries] => r[1] !== undefined);
    for (const [label, series] of shown) out.push(serverRow(label, series));
    // One space after the label: fitLines wraps the fields under it, and with two the first field sat a column right of the rest.
    if (shown.length > 0) out.push(`  p99 buckets: ${shown.map(([label, series]) => `${label.toLowerCase()} ${edges(series.p99)}`).join('  ')}`);
    const counted = s.queue?.count ?? s.prefill?.count ?? 0;
    // A server counts the requests it finished; more than the client completed means it was shared.
    if (counted !== client.completed) out.push(`  The histograms counted ${counted} requests, the client completed ${client.completed}: another client shared the server, or some failed after it counted them.`);
    const bounds = [s.queue, s.prefill].some((x) => x && [x.p50, x.p95, x.p99].some((q) => q.lower === 0 || !Number.isFinite(q.upper)));
    if (bounds) out.push('  Queue and prefill percentiles shown as bounds are not used by the expectations (they cannot be judged from these buckets).');
  } else {
    out.push(`Server side: not available (${server.reason}); client side only.`);
  }
  if (client.failures.length > 0) {
    out.push('Failed requests:');
    for (const f of client.failures) out.push(`  ${String(f.count).padStart(5)} × ${f.reason}`);
  }
  return `${out.join('\n')}\n`;
}
