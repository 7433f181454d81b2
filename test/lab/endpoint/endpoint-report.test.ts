// The endpoint report as kb lab prints it on 80 columns (fitLines wraps long lines under their label).
import { describe, expect, it } from 'vitest';
import { endpointTable } from '../../../src/lab/endpoint/endpoint-report.ts';
import { summarizeRequests, type ServerSeries, type ServerSide } from '../../../src/lab/endpoint/measure.ts';
import { fitLines } from '../../../src/ui/text/fit-lines.ts';

const series = (name: string, ms: number): ServerSeries => {
  const q = { value: ms, lower: ms * 0.9, upper: ms * 1.1 };
  return { name, count: 64, p50: q, p95: q, p99: q, meanMs: ms };
};

describe('the endpoint report at 80 columns', () => {
  it('wraps the p99 buckets line with its fields under the first one', () => {
    // Found against kb serve: the second row began one column left of the first field.
    const client = summarizeRequests([{ promptTokens: 8, outcome: { sentAt: 0, endedAt: 30, chunkTimes: [10, 20, 30], outputTokens: 3, usagePromptTokens: 8, error: null } }], { ttftMs: 0, tpotMs: 0 });
    const server: ServerSide = {
      available: true,
      series: { queue: series('q', 25.1), prefill: series('p', 26.4), ttft: series('t', 51.2), decode: series('d', 320) },
    };
    const header = { url: 'http://127.0.0.1:8000/v1', model: 'gpt2', serverVersion: '0.1.0', promptSource: 'exact', ignoreEos: true, maxConcurrency: null };
    const lines = fitLines(endpointTable(header, client, server), 79).split('\n');
    const at = lines.findIndex((line) => line.startsWith('  p99 buckets:'));
    expect(lines[at + 1]).toMatch(/^ +\S/);
    expect(lines[at + 1].search(/\S/)).toBe(lines[at].indexOf('queue time'));
  });
});
