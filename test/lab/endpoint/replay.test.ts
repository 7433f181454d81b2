// The workload replay: arrivals on time, --max-concurrency honoured on the client, Ctrl-C
// leaving unsent requests unsent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replay, type EndpointSession } from '../../../src/lab/endpoint/run-point.ts';
import { parseEndpoint } from '../../../src/lab/endpoint/target.ts';
import { startFakeServer, type FakeServer } from '../../helpers/fake-openai-server.ts';

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer({ slots: 64, prefillMs: 1, decodeMs: 1 });
});
afterAll(() => server.close());

const session = (maxConcurrency: number | null): EndpointSession => ({
  target: parseEndpoint(server.url),
  server: { model: 'gpt2', version: null, ignoreEos: true },
  maxConcurrency,
});
const request = (arrivalMs: number) => ({ prompt: [1, 2, 3], promptTokens: 3, maxTokens: 4, arrivalMs });

describe('replaying a workload against a server', () => {
  it('keeps at most --max-concurrency requests open', async () => {
    server.maxOpen = 0;
    let done = 0;
    const sent = await replay(session(3), Array.from({ length: 20 }, () => request(0)), undefined, () => (done += 1));
    expect(sent).toHaveLength(20);
    expect(done).toBe(20);
    expect(server.maxOpen).toBe(3);
    expect(sent.every((s) => s.measured.outcome.error === null)).toBe(true);
  });

  it('sends each request no earlier than its arrival time', async () => {
    const arrivals = [0, 30, 60, 120];
    const start = performance.now();
    const sent = await replay(session(null), arrivals.map(request), undefined, () => {});
    const offsets = sent.map((s) => s.measured.outcome.sentAt - start).sort((a, b) => a - b);
    offsets.forEach((offset, i) => expect(offset).toBeGreaterThanOrEqual(arrivals[i]));
  });

  it('after an abort, sends nothing more and keeps what finished', async () => {
    const controller = new AbortController();
    const requests = [request(0), request(0), request(5000), request(5000)];
    const pending = replay(session(null), requests, controller.signal, () => controller.abort());
    const started = performance.now();
    const sent = await pending;
    expect(performance.now() - started).toBeLessThan(4000);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent.length).toBeLessThanOrEqual(2);
  });
});
