// A server stopped during a lab (Ctrl-C on kb serve): its requests are refused and its
// /metrics no longer answers. The report said "the server offers no Prometheus /metrics with
// histograms", sending a learner to look for a missing feature of a server that has it; and
// a run in which every request failed was stored as "ok" (0 tokens/s, shown as the latest
// complete run). The scrape now tells "unreachable" from "no /metrics", and a run with no
// successful request fails, naming why its requests failed.
import { describe, expect, it } from 'vitest';
import { applyOverrides, defaultSettings } from '../../../src/lab/lab-settings.ts';
import { serverSide } from '../../../src/lab/endpoint/measure.ts';
import { runEndpointPoint } from '../../../src/lab/endpoint/run-point.ts';
import { scrapeHistograms } from '../../../src/lab/endpoint/server-histograms.ts';
import { parseEndpoint } from '../../../src/lab/endpoint/target.ts';
import { startFakeServer } from '../../helpers/fake-openai-server.ts';

describe('a server that stops during a lab', () => {
  it('is said to be unreachable, not to offer no /metrics', async () => {
    const server = await startFakeServer();
    const target = parseEndpoint(server.url);
    await server.close();
    const scrape = await scrapeHistograms(target.root, {}, 'gpt2');
    expect(serverSide(scrape, scrape)).toEqual({ available: false, reason: expect.stringMatching(/could not be reached/) });
  });

  it('fails the run when every measured request failed, with the reasons', async () => {
    const server = await startFakeServer({ slots: 8, prefillMs: 1, decodeMs: 1 });
    const settings = applyOverrides(defaultSettings, [
      { key: 'workload.requests', value: 4 },
      { key: 'workload.promptTokens', value: { min: 4, max: 4 } },
      { key: 'workload.outputTokens', value: { min: 2, max: 2 } },
      { key: 'workload.arrival', value: 'burst' },
      { key: 'warmup', value: 1 },
      { key: 'repeats', value: 1 },
    ]);
    let stopping: Promise<void> | null = null;
    const run = runEndpointPoint(
      { target: parseEndpoint(server.url), server: { model: 'gpt2', version: null, ignoreEos: true }, maxConcurrency: null },
      settings,
      {
        onProgress: (p) => {
          // The warm-up done, the server goes (as Ctrl-C on kb serve between the two).
          if (p.phase === 'warmup' && p.requestsDone === p.requestsTotal) stopping ??= server.close();
        },
      },
    );
    await expect(run).rejects.toThrow(/every one of the 4 measured requests failed: 4 × connection refused/);
    await stopping;
  });
});
