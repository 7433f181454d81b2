// A server stopped during a lab's warm-up (Ctrl-C on kb serve): every measured request is
// refused, and neither /metrics scrape reaches it. The report said "the server offers no
// Prometheus /metrics with histograms", sending a learner to look for a missing feature of a
// server that has it; it now says the server could not be reached.
import { describe, expect, it } from 'vitest';
import { applyOverrides, defaultSettings } from '../../../src/lab/lab-settings.ts';
import { runEndpointPoint } from '../../../src/lab/endpoint/run-point.ts';
import { parseEndpoint } from '../../../src/lab/endpoint/target.ts';
import { startFakeServer } from '../../helpers/fake-openai-server.ts';

describe('a server that stops during the warm-up', () => {
  it('says the server could not be reached, not that it offers no /metrics', async () => {
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
    const run = await runEndpointPoint(
      { target: parseEndpoint(server.url), server: { model: 'gpt2', version: null, ignoreEos: true }, maxConcurrency: null },
      settings,
      {
        onProgress: (p) => {
          if (p.phase === 'warmup' && p.requestsDone === p.requestsTotal) stopping ??= server.close();
        },
      },
    );
    await stopping;
    expect(stopping).not.toBeNull();
    expect(run.report?.client.failed).toBe(4);
    expect(run.report?.server).toEqual({ available: false, reason: expect.stringMatching(/could not be reached/) });
    expect(run.table).not.toMatch(/offers no Prometheus/);
  });
});
