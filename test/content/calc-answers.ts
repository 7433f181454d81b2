// Independent computations of every shipped kb-calc card's answer, written from the question
// alone (not from the card's formula), keyed by a phrase of the question. A calc card without
// an entry here fails the content test: a new card needs its own check.
type Values = Readonly<Record<string, number>>;

const KiB = 1024;
const GB = 1e9;
const kvBytesPerToken = (layers: number, kvHeads: number, headDim: number, bytes: number) =>
  2 /* K and V */ * layers * kvHeads * headDim * bytes;
/** Linear interpolation between closest ranks, as numpy's default percentile. */
function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}
const specTokensPerStep = (alpha: number, k: number) => {
  // Expected accepted drafts plus the target's own token: sum of alpha^i for i = 0..k.
  let sum = 0;
  for (let i = 0; i <= k; i++) sum += alpha ** i;
  return sum;
};

export const independentAnswers: Array<[phrase: string, answer: (v: Values) => number]> = [
  // your machine (lab-sourced figures; the fallbacks stand in for them here)
  ['What share of {bw} GB/s of memory bandwidth does that use', (v) => (100 * ((v.tps * v.w * 1e6) / GB)) / v.bw],
  ['How many times the single-sequence rate is that', (v) => v.t32 / v.t1],
  ['What is the TPOT each of those sequences sees', (v) => (1000 * 32) / v.t32],
  ['About how long did each admission wave take', (v) => v.qw / (256 / 16 - 1)],
  ['what would it be with 32 admitted per step', (v) => (v.qw / (256 / 16 - 1)) * (256 / 32 - 1)],
  ['How many prompt tokens were still computed', (v) => v.n * v.p - v.n * v.p * v.hit],
  ['How many times faster is the first token with the cache', (v) => v.off / v.on],
  ['How many ms of the worst gaps did chunking remove', (v) => v.itl0 - v.itl64],
  ['what does that predict for {q} tokens', (v) => Math.exp(v.k * Math.log(v.q / v.p)) * v.t],
  ['how many requests are in flight on average', (v) => v.lat * v.frac * v.cap],
  ['How many % more is continuous', (v) => (100 * (v.tc - v.ts)) / v.ts],
  // batching
  ['percentage of decode slots did useful work', (v) => (100 * Math.round(v.lmax * v.frac)) / v.lmax],
  ['how many requests per second complete (ignore prefill)', (v) => v.b / ((v.n * v.tpot) / 1000)],
  ['padding tokens does prefill compute for nothing', (v) => v.b * v.pmax - v.b * Math.round(v.pmax * v.frac)],
  // benchmarking
  ['What is their p90 by linear interpolation', (v) => percentile([v.v1, v.v2, v.v3, v.v4], 90)],
  ['What is their p95 by linear interpolation', (v) => percentile([v.v1, v.v2, v.v3, v.v4], 95)],
  ['What is their median (p50)', (v) => percentile([v.v1, v.v2, v.v3, v.v4], 50)],
  ['closed-loop benchmark runs', (v) => v.n / v.w],
  ['lie above the p99 of TTFT', (v) => v.rate * v.dur / 100],
  ['mean gap between requests', (v) => (1 / v.rate) * 1000],
  // kernels
  ['memory would naive attention need for the score matrix', (v) => (v.h * v.n ** 2 * 2) / GB],
  ['How much launch overhead per step does a CUDA graph remove', (v) => (v.k * v.us) / 1000],
  ['memory-bandwidth utilization (MBU)', (v) => (100 * (v.w * GB) / (v.tpot / 1000)) / (v.bw * 1e12)],
  ['What MFU is that', (v) => (100 * (2 * v.p * 1e9 * v.tokens)) / (v.t / 1000) / (v.peak * 1e12)],
  // kv-cache
  ['How many KiB of KV cache per token', (v) => kvBytesPerToken(v.layers, v.kvh, v.hd, v.bpe) / KiB],
  ['How much KV memory do', (v) => (kvBytesPerToken(v.layers, 8, 128, v.bpe) * v.b * v.ctx) / GB],
  ['rebuilt with GQA', (v) => v.mha / (v.qh / v.kvh)],
  ['How many such sequences fit at once', (v) => Math.floor((0.9 * v.gpu * GB - v.w * GB) / (v.ctx * v.kv * KiB))],
  ['how many KV blocks does a', (v) => Math.ceil(v.len / v.b)],
  ['How many blocks does the pool have', (v) => Math.floor((v.budget * GB) / (v.b * v.kv * KiB))],
  ['Which slot index of the pool receives its K/V', (v) => v.phys * v.b + (v.pos % v.b)],
  // metrics
  ['What is its TPOT', (v) => v.tpot],
  ['What is the end-to-end latency', (v) => (v.ttft + (v.n - 1) * v.tpot) / 1000],
  ['What output throughput does it reach', (v) => v.b / (v.tpot / 1000)],
  ['What is the goodput', (v) => Math.round(v.total * v.frac) / v.dur],
  ['How many requests per second does it complete', (v) => v.tps / v.out],
  ['What share of its TTFT was queue wait', (v) => (100 * v.qw) / (v.qw + v.pf)],
  // prefill-decode
  ['About how many FLOPs does that take', (v) => (2 * v.p * 1e9 * v.tokens) / 1e12],
  ['How long does the prefill take', (v) => ((2 * v.p * 1e9 * v.tokens) / (v.peak * 1e12 * v.mfu)) * 1000],
  ['At most how many tokens/s', (v) => (v.bw * 1e12) / (v.p * 1e9 * v.bpp)],
  ['What is its arithmetic intensity', (v) => (2 * v.m * v.k * v.n) / (2 * v.m * v.k + 2 * v.k * v.n + 2 * v.m * v.n)],
  ['Where is its roofline ridge point', (v) => (v.peak * 1e12) / (v.bw * 1e12)],
  ['do the weight matmuls become compute-bound', (v) => Math.ceil(v.ridge / (2 / v.bpp))],
  ['What is the memory-bound step time', (v) => ((v.w * GB + v.b * v.ctx * 128 * KiB) / (v.bw * 1e12)) * 1000],
  // prefix-cache
  ['how many prefill tokens does prefix caching save', (v) => (v.r - 1) * v.b * Math.floor(v.s / v.b)],
  ["How long does this request's prefill take", (v) => (v.p - v.b * Math.floor(v.s / v.b)) / v.rate],
  ['What fraction of its prompt tokens is served from the cache', (v) => (100 * v.b * Math.floor(v.s / v.b)) / v.p],
  // quantization
  ['How much memory do the weights of a', (v) => (v.p * 1e9 * (v.bits / 8)) / GB],
  ['How many bits does a weight really cost', (v) => (4 * v.g + 16) / v.g],
  ['How many GB of weight memory are saved', (v) => (v.p * 1e9 * 2 - (v.p * 1e9 * (4 + 16 / v.g)) / 8) / GB],
  ['What integer does the value quantize to', (v) => Math.round(v.x / (v.amax / 127))],
  ['What is the best-case decode speed-up', (v) => (v.w + v.kv) / (v.w * 0.25 + v.kv)],
  ['how many times more tokens fit in the same KV budget', (v) => 16 / v.fmt],
  // scheduling
  ['By M/M/1', (v) => 1000 / (v.mu * (1 - v.rho))],
  ['How many steps until its first token', (v) => Math.ceil(v.p / v.c)],
  ['How long does swapping it out to CPU memory take', (v) => ((v.tokens * v.kv * KiB) / (v.pcie * GB)) * 1000],
  ['how long does recomputing its KV take on resume', (v) => ((v.p + v.g) / v.rate) * 1000],
  ['how long does the last request wait for admission', (v) => Math.floor((v.r - 1) / v.a) * v.t],
  // serving
  ['how many tokens does each target forward pass produce', (v) => specTokensPerStep(v.alpha, v.k)],
  ['What wall-clock speed-up over plain decoding', (v) => specTokensPerStep(v.alpha, v.k) / (1 + v.k * v.c)],
  ['How many requests are in flight on average', (v) => v.lam * v.w],
  ['How long does the transfer take', (v) => ((v.p * v.kv * KiB) / (v.link * GB)) * 1000],
  ['How long does that part of the cold start take', (v) => v.w / v.rate],
  ['How many GB of weights does each GPU hold', (v) => (v.p * v.bpp) / v.t],
  ['How many replicas are needed', (v) => Math.ceil(v.lam / v.cap)],
];
