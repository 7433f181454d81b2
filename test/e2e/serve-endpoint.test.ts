// Issue #14's two halves together: kb's endpoint client (kb lab --endpoint) measuring kb serve
// on loopback reproduces ttft-breakdown's expectations, and the server-side split it reads
// from /metrics agrees with the same lab run in-process: most of TTFT is queue wait.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/kb-cli.ts';
import { runKbAsync } from '../helpers/kb-cli-async.ts';
import { startKbServe, stopKbServes } from '../helpers/kb-serve.ts';

afterEach(stopKbServes);

interface RunJson {
  status: string;
  backend: string;
  points: Array<{ metrics: Record<string, number>; report: { server?: { available: boolean } } }>;
  checks: Array<{ metric: string; pass: boolean | null; problem: string | null }>;
}

/** The share of the mean TTFT spent waiting in the queue (means: exact from a histogram's sum and count). */
const queueShare = (metrics: Record<string, number>) => metrics['queue_wait.mean'] / (metrics['queue_wait.mean'] + metrics['prefill_first.mean']);

describe('kb lab --endpoint against kb serve', () => {
  // One retry: the lab's second expectation holds with a 2x margin on a quiet machine
  // (prefill->first token p99 ~10% of TTFT p99, at most 20% expected), but one step stalled by
  // another test file on the same two cores has pushed it over once in a full run.
  it('reproduces ttft-breakdown, with a server-side queue/prefill split like the in-process run', { retry: 1, timeout: 180_000 }, async () => {
    const serve = await startKbServe(['--quiet']);
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    // The URL as kb serve prints it (no /v1): a user copies that one.
    const remote = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', serve.url, '--json'], { env, timeoutMs: 120_000 });
    expect(remote.code, remote.stderr).toBe(0);
    const local = await runKbAsync(['lab', 'ttft-breakdown', '--json'], { env, timeoutMs: 120_000 });
    expect(local.code, local.stderr).toBe(0);
    const [overHttp, inProcess] = [remote, local].map((run) => JSON.parse(run.stdout) as RunJson);

    expect(overHttp.backend).toBe('endpoint');
    expect(overHttp.points[0].report.server?.available).toBe(true);
    for (const run of [overHttp, inProcess]) {
      expect(run.status).toBe('ok');
      // Over HTTP a server-side p99 is known only to its /metrics bucket: a check whose bucket
      // straddles the expected value is left unjudged, and says so; none fails.
      const judged = run.checks.map((check) => [check.metric, check.pass === null && run === overHttp && /only known to lie in a \/metrics bucket/.test(check.problem ?? '') ? true : check.pass]);
      expect(judged).toEqual([
        ['queue_wait.p99 / ttft.p99', true],
        ['prefill_first.p99 / ttft.p99', true],
      ]);
    }
    const [served, engine] = [overHttp, inProcess].map((run) => run.points[0].metrics);
    // kb serve's finer buckets resolve the split: no percentile is left as a bound.
    for (const metric of ['queue_wait.p50', 'queue_wait.p99', 'prefill_first.p50', 'prefill_first.p99']) expect(served[metric], metric).toBeGreaterThan(0);
    expect(queueShare(served)).toBeGreaterThan(0.6);
    expect(Math.abs(queueShare(served) - queueShare(engine))).toBeLessThan(0.15);
  });
});
