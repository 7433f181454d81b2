import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compare, CheckSyntaxError, evaluateCheck, evaluateChecks, parseCheck, type CheckOp } from '../../src/lab/checks.ts';
import { verdictOf } from '../../src/lab/run.ts';
import { verdictText } from '../../src/lab/verdict-text.ts';

const ratio = parseCheck({ metric: 'queue_wait.p99 / ttft.p99', op: '>=', value: 0.8, say: 'mostly queue' }, null);

describe('checks', () => {
  it('evaluates a ratio on a single run', () => {
    const pass = evaluateCheck(ratio, { single: { 'queue_wait.p99': 90, 'ttft.p99': 100 }, points: [] });
    expect(pass).toMatchObject({ measured: 0.9, pass: true, problem: null });
    const fail = evaluateCheck(ratio, { single: { 'queue_wait.p99': 10, 'ttft.p99': 100 }, points: [] });
    expect(fail).toMatchObject({ measured: 0.1, pass: false });
  });

  it('reports a check it cannot evaluate instead of passing or failing it', () => {
    expect(evaluateCheck(ratio, { single: { 'queue_wait.p99': 10 }, points: [] })).toMatchObject({ pass: null, problem: 'ttft.p99 was not measured' });
    expect(evaluateCheck(ratio, { single: { 'queue_wait.p99': 10, 'ttft.p99': 0 }, points: [] })).toMatchObject({ pass: null, problem: expect.stringMatching(/is 0/) });
    expect(evaluateCheck(ratio, { single: null, points: [] })).toMatchObject({ pass: null });
  });

  it('prints a range\'s bounds with the digits that show which side of the expected value each lies', () => {
    const small = parseCheck({ metric: 'prefill_first.p99 / ttft.p99', op: '<=', value: 0.2, say: 'small' }, null);
    const single = { 'prefill_first.p99': 190, 'ttft.p99': 1000 };
    // 200.04 / 1000 read "0.200" to three places: as if on the threshold, not past it.
    const outcome = evaluateCheck(small, { single, singleBounds: { 'prefill_first.p99': { lower: 178, upper: 200.04 } }, points: [] });
    expect(outcome).toMatchObject({ pass: null, problem: expect.stringContaining('(the ratio lies in 0.178-0.20004), either side of 0.2') });
  });

  it('a known failure decides the verdict even when another expectation could not be judged', () => {
    const small = parseCheck({ metric: 'prefill_first.p99 / ttft.p99', op: '<=', value: 0.2, say: 'small' }, null);
    const single = { 'queue_wait.p99': 100, 'prefill_first.p99': 900, 'ttft.p99': 1000 };
    // The queue wait's bucket straddles 0.8 (unjudged); the prefill share of 0.9 fails outright.
    const checks = evaluateChecks([ratio, small], { single, singleBounds: { 'queue_wait.p99': { lower: 700, upper: 900 } }, points: [] });
    expect(checks.map((c) => c.pass)).toEqual([null, false]);
    expect(verdictOf(checks, 'ok')).toBe('not reproduced');
    expect(verdictText('not reproduced', checks, 'ok')).toBe('Verdict: not reproduced (0/2 expectations hold; 1 could not be judged)');
    // Unjudged with no failure, or an interrupted run, stays incomplete.
    expect(verdictOf([{ pass: true }, { pass: null }], 'ok')).toBe('incomplete');
    expect(verdictOf([{ pass: false }], 'partial')).toBe('incomplete');
  });

  it('in a sweep, picks points with @ and otherwise requires every point, reporting the worst', () => {
    const points = [
      { label: '16', metrics: { 'ttft.p99': 500, 'queue_wait.p99': 480 } },
      { label: '256', metrics: { 'ttft.p99': 200, 'queue_wait.p99': 20 } },
    ];
    const pinned = parseCheck({ metric: 'ttft.p99@256 / ttft.p99@16', op: '<', value: 0.5, say: 'lifting the cap halves TTFT p99' }, ['16', '256']);
    expect(evaluateCheck(pinned, { single: null, points })).toMatchObject({ measured: 0.4, pass: true });
    const every = parseCheck({ metric: 'queue_wait.p99 / ttft.p99', op: '>=', value: 0.8, say: 'x' }, ['16', '256']);
    expect(evaluateCheck(every, { single: null, points })).toMatchObject({ measured: 0.1, at: '256', pass: false });
  });

  it('judges a metric known only to a /metrics bucket when the whole bucket gives one verdict', () => {
    // The probe that found it: queue wait p99 in (1000, 1500] ms against a client TTFT p99 of
    // 1358 ms was judged on the bucket's interpolated 1480 ms: a ratio of 1.09, "reproduced".
    const single = { 'queue_wait.p99': 1480, 'ttft.p99': 1358 };
    const straddles = evaluateCheck(ratio, { single, singleBounds: { 'queue_wait.p99': { lower: 1000, upper: 1500 } }, points: [] });
    expect(straddles).toMatchObject({ pass: null, measured: null, problem: expect.stringMatching(/queue_wait\.p99 is only known to lie in a \/metrics bucket \(the ratio lies in 0\.736-1\.105\), either side of 0\.8/) });
    // A bucket wholly on one side decides it.
    expect(evaluateCheck(ratio, { single, singleBounds: { 'queue_wait.p99': { lower: 1100, upper: 1500 } }, points: [] })).toMatchObject({ pass: true, measured: single['queue_wait.p99'] / single['ttft.p99'] });
    expect(evaluateCheck(ratio, { single: { 'queue_wait.p99': 400, 'ttft.p99': 1358 }, singleBounds: { 'queue_wait.p99': { lower: 300, upper: 500 } }, points: [] })).toMatchObject({ pass: false });
    // In a sweep, a point that fails whatever its bucket holds fails the check; an undecided one alone leaves it unjudged.
    const every = parseCheck({ metric: 'queue_wait.p99 / ttft.p99', op: '>=', value: 0.8, say: 'x' }, ['16', '256']);
    const bucket = { 'queue_wait.p99': { lower: 1000, upper: 1500 } };
    const undecided = { label: '16', metrics: single, bounds: bucket };
    expect(evaluateCheck(every, { single: null, points: [undecided, { label: '256', metrics: { 'ttft.p99': 200, 'queue_wait.p99': 20 } }] })).toMatchObject({ pass: false, at: '256' });
    expect(evaluateCheck(every, { single: null, points: [undecided, { label: '256', metrics: { 'ttft.p99': 200, 'queue_wait.p99': 190 } }] })).toMatchObject({ pass: null, at: '16' });
  });

  describe('against a server: a ratio compares figures of one side', () => {
    // The run's metrics: the client's TTFT, and the queue wait only the server sees (as endpointMetrics puts them).
    const run = { 'queue_wait.p99': 850, 'ttft.p99': 1000, 'tpot.p50': 10 };

    it("divides the server's queue wait by the server's own TTFT, not the client's", () => {
      // The client's TTFT adds the network and the client: 850 / 1000 failed where the server's own 850 / 900 holds.
      const server = { metrics: { 'queue_wait.p99': 850, 'ttft.p99': 900 } };
      expect(evaluateCheck(ratio, { single: run, singleServer: server, points: [] })).toMatchObject({ measured: 850 / 900, pass: true, sides: "both from the server's /metrics" });
      // The server's TTFT is a bucket estimate too: the check is judged on its whole bucket.
      const bucketed = { ...server, bounds: { 'ttft.p99': { lower: 750, upper: 1000 } } };
      expect(evaluateCheck(ratio, { single: run, singleServer: bucketed, points: [] })).toMatchObject({ pass: true, sides: "both from the server's /metrics" });
      // In a sweep, at each point.
      const every = parseCheck({ metric: 'queue_wait.p99 / ttft.p99', op: '>=', value: 0.8, say: 'x' }, ['1', '2']);
      const points = [
        { label: '1', metrics: run, server },
        { label: '2', metrics: run, server: { metrics: { 'queue_wait.p99': 850, 'ttft.p99': 2000 } } },
      ];
      expect(evaluateCheck(every, { single: null, points })).toMatchObject({ measured: 850 / 2000, at: '2', pass: false, sides: "both from the server's /metrics" });
    });

    it('where the server gives no TTFT, mixes the two and says so', () => {
      const outcome = evaluateCheck(ratio, { single: run, singleServer: { metrics: { 'queue_wait.p99': 850 } }, points: [] });
      expect(outcome).toMatchObject({ measured: 0.85, pass: true });
      expect(outcome.sides).toBe("mixed: queue_wait.p99 from the server's /metrics, ttft.p99 from kb's client, the server giving none usable; two clocks, the client's with the network in it");
    });

    it("a ratio of the client's own figures stays the client's, and a run on kb's engine says nothing", () => {
      const client = parseCheck({ metric: 'ttft.p99 / tpot.p50', op: '>=', value: 1, say: 'x' }, null);
      const server = { metrics: { 'queue_wait.p99': 850, 'ttft.p99': 900 } };
      expect(evaluateCheck(client, { single: run, singleServer: server, points: [] })).toMatchObject({ measured: 100, sides: null });
      expect(evaluateCheck(ratio, { single: run, points: [] })).toMatchObject({ measured: 0.85, sides: null });
    });
  });

  it('names the points a check needs that the sweep did not measure, not a metric "not measured"', () => {
    const labels = ['1', '2', '4', '8', '32', '128'];
    const ratio = parseCheck({ metric: 'decode.tokens_per_s@128 / decode.tokens_per_s@32', op: '<=', value: 2, say: 'flattens' }, labels);
    const points = ['1', '2', '4'].map((label) => ({ label, metrics: { 'decode.tokens_per_s': 100 } }));
    expect(evaluateCheck(ratio, { single: null, points })).toMatchObject({
      pass: null,
      problem: 'points 128 and 32 were not measured in this run, which measured 1, 2 and 4',
    });
    const one = parseCheck({ metric: 'decode.tokens_per_s@8 / decode.tokens_per_s@1', op: '>=', value: 2, say: 'doubles' }, labels);
    expect(evaluateCheck(one, { single: null, points })).toMatchObject({ pass: null, problem: 'point 8 was not measured in this run, which measured 1, 2 and 4' });
    // A point that ran without the metric is still the metric's problem.
    expect(evaluateCheck(one, { single: null, points: [...points, { label: '8', metrics: {} }] })).toMatchObject({ problem: 'decode.tokens_per_s was not measured' });
  });

  it('refuses malformed expressions with a reason', () => {
    expect(() => parseCheck({ metric: 'a / b / c', op: '>', value: 1, say: 'x' }, null)).toThrow(CheckSyntaxError);
    expect(() => parseCheck({ metric: 'ttft.p99 * 2', op: '>', value: 1, say: 'x' }, null)).toThrow(/not a metric name/);
    expect(() => parseCheck({ metric: 'ttft.p42', op: '>', value: 1, say: 'x' }, null)).toThrow(/unknown metric "ttft\.p42"/);
  });

  it('compare agrees with the operator it names', () => {
    const ops: CheckOp[] = ['>=', '>', '<=', '<'];
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), fc.constantFrom(...ops), (a, b, op) => {
        const expected = { '>=': a >= b, '>': a > b, '<=': a <= b, '<': a < b }[op];
        expect(compare(a, op, b)).toBe(expected);
      }),
    );
  });
});
