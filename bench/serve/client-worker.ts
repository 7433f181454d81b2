// One thread of the spread benchmark client (client-pool.ts): runs its share of a workload's
// requests through stream-client.ts and sends back each outcome with epoch-based times.
import { parentPort } from 'node:worker_threads';
import type { ClientJob } from './client-pool.ts';
import { keepAliveAgent, streamCompletion } from './stream-client.ts';

const agent = keepAliveAgent();
parentPort!.on('message', async (job: ClientJob) => {
  const origin = performance.timeOrigin;
  const runs = job.requests.map(async (r) => {
    const wait = job.startAt + r.arrivalMs - (origin + performance.now());
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const outcome = await streamCompletion(job.url, { prompt: r.promptIds, max_tokens: r.maxNewTokens, ignore_eos: true, temperature: 0 }, agent);
    return { index: r.index, outcome: { ...outcome, start: outcome.start + origin, end: outcome.end + origin } };
  });
  parentPort!.postMessage(await Promise.all(runs));
});
