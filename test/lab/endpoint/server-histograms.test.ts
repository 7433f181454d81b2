import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketQuantile, histogramDelta, parseHistograms, type Histogram } from '../../../src/lab/endpoint/server-histograms.ts';

// Two engines of one model and a second model, labelled as vLLM labels them.
const scrape = (q0: number, qInf: number, sum: number) => `# HELP vllm:request_queue_time_seconds Histogram of time spent in WAITING phase for request.
# TYPE vllm:request_queue_time_seconds histogram
vllm:request_queue_time_seconds_bucket{engine="0",le="0.3",model_name="gpt2"} ${q0}
vllm:request_queue_time_seconds_bucket{engine="0",le="0.5",model_name="gpt2"} ${q0 + 1}
vllm:request_queue_time_seconds_bucket{engine="0",le="+Inf",model_name="gpt2"} ${qInf}
vllm:request_queue_time_seconds_count{engine="0",model_name="gpt2"} ${qInf}
vllm:request_queue_time_seconds_sum{engine="0",model_name="gpt2"} ${sum}
vllm:request_queue_time_seconds_bucket{engine="1",le="0.3",model_name="gpt2"} 1.0
vllm:request_queue_time_seconds_bucket{engine="1",le="0.5",model_name="gpt2"} 1.0
vllm:request_queue_time_seconds_bucket{engine="1",le="+Inf",model_name="gpt2"} 1.0
vllm:request_queue_time_seconds_count{engine="1",model_name="gpt2"} 1.0
vllm:request_queue_time_seconds_sum{engine="1",model_name="gpt2"} 0.1
vllm:request_queue_time_seconds_bucket{engine="0",le="0.3",model_name="other"} 100.0
vllm:request_queue_time_seconds_bucket{engine="0",le="0.5",model_name="other"} 100.0
vllm:request_queue_time_seconds_bucket{engine="0",le="+Inf",model_name="other"} 100.0
vllm:request_queue_time_seconds_count{engine="0",model_name="other"} 100.0
vllm:request_queue_time_seconds_sum{engine="0",model_name="other"} 1.0
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="gpt2"} 0.0
`;

describe('server histograms from /metrics', () => {
  it("sums a model's label sets, leaves other models and other types out", () => {
    const h = parseHistograms(scrape(2, 5, 1.5), 'gpt2').get('vllm:request_queue_time_seconds')!;
    expect(h).toEqual({ edges: [0.3, 0.5, Infinity], cumulative: [3, 4, 6], count: 6, sum: 1.6 });
    expect(parseHistograms(scrape(2, 5, 1.5), 'gpt2').has('vllm:num_requests_running')).toBe(false);
    expect(parseHistograms(scrape(2, 5, 1.5)).get('vllm:request_queue_time_seconds')!.count).toBe(106);
  });

  it('takes the difference of two scrapes bucket by bucket; a reset counter gives none', () => {
    const before = parseHistograms(scrape(2, 5, 1.5), 'gpt2').get('vllm:request_queue_time_seconds');
    const after = parseHistograms(scrape(10, 20, 4), 'gpt2').get('vllm:request_queue_time_seconds');
    expect(histogramDelta(before, after)).toEqual({ edges: [0.3, 0.5, Infinity], cumulative: [8, 8, 15], count: 15, sum: expect.closeTo(2.5, 9) });
    expect(histogramDelta(after, before)).toBeNull();
  });

  it('interpolates inside the bucket holding the rank, as histogram_quantile does', () => {
    const h: Histogram = { edges: [1, 2, 4, Infinity], cumulative: [10, 30, 40, 40], count: 40, sum: 60 };
    expect(bucketQuantile(h, 0.5)).toEqual({ value: 1.5, lower: 1, upper: 2 }); // rank 20: half way through (1, 2]
    expect(bucketQuantile(h, 0.125)!.value).toBeCloseTo(0.5); // rank 5 of the first bucket, from 0
    expect(bucketQuantile(h, 0.9)).toEqual({ value: 3.2, lower: 2, upper: 4 }); // rank 36: 6 of the 10 in (2, 4]
    const tail: Histogram = { edges: [1, Infinity], cumulative: [1, 4], count: 4, sum: 9 };
    expect(bucketQuantile(tail, 0.99)).toEqual({ value: 1, lower: 1, upper: Infinity });
    expect(bucketQuantile({ edges: [1, Infinity], cumulative: [0, 0], count: 0, sum: 0 }, 0.5)).toBeNull();
  });

  it('the true percentile of the observed values lies in the bucket the estimate names', () => {
    const edges = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, Infinity];
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 4, noNaN: true }), { minLength: 1, maxLength: 200 }), fc.constantFrom(0.5, 0.9, 0.95, 0.99), (values, q) => {
        const cumulative = edges.map((edge) => values.filter((v) => v <= edge).length);
        const h: Histogram = { edges, cumulative, count: values.length, sum: values.reduce((a, b) => a + b, 0) };
        const estimate = bucketQuantile(h, q)!;
        // The value of rank ceil(q * n) (nearest rank) is in the bucket the estimate lies in.
        const sorted = [...values].sort((a, b) => a - b);
        const nearest = sorted[Math.max(0, Math.ceil(q * values.length) - 1)];
        expect(nearest).toBeGreaterThanOrEqual(estimate.lower);
        expect(nearest).toBeLessThanOrEqual(estimate.upper);
        expect(estimate.value).toBeGreaterThanOrEqual(estimate.lower);
        expect(estimate.value).toBeLessThanOrEqual(estimate.upper);
      }),
    );
  });
});
