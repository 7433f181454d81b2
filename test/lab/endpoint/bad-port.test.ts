// A server on a port the fetch standard calls "bad" (6000, 6665-6669, 10080, ...): kb serve
// listens there when asked, and a lab against it must reach it (fetch() refused it: "bad port").
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { probeServer } from '../../../src/lab/endpoint/server-info.ts';
import { serverTokenize } from '../../../src/lab/endpoint/prompts.ts';
import { scrapeHistograms } from '../../../src/lab/endpoint/server-histograms.ts';
import { parseEndpoint } from '../../../src/lab/endpoint/target.ts';

const FETCH_BAD_PORTS = [10080, 6679, 6566, 6000, 6665, 6666, 6667, 6668, 6669];

let server: Server | null = null;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A minimal OpenAI-compatible server on the first of the bad ports that is free. */
async function onBadPort(): Promise<number> {
  for (const port of FETCH_BAD_PORTS) {
    const candidate = createServer((req, res) => {
      const send = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/v1/models') return send({ data: [{ id: 'tiny' }] });
      if (req.url === '/version') return send({ name: 'stub', version: '1.0' });
      if (req.url === '/v1/completions') return send({ choices: [{ text: 'x' }] });
      if (req.url === '/tokenize') return send({ tokens: [1, 2, 3] });
      if (req.url === '/metrics') return res.writeHead(200).end('# TYPE vllm:time_to_first_token_seconds histogram\nvllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="tiny"} 1\nvllm:time_to_first_token_seconds_sum{model_name="tiny"} 0.1\nvllm:time_to_first_token_seconds_count{model_name="tiny"} 1\n');
      res.writeHead(404).end();
    });
    const listening = await new Promise<boolean>((resolve) => {
      candidate.once('error', () => resolve(false));
      candidate.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) {
      server = candidate;
      return port;
    }
  }
  throw new Error('every bad port is taken');
}

describe('a server on a port fetch() refuses', () => {
  it('is probed, tokenizes and is scraped like any other', async () => {
    const port = await onBadPort();
    await expect(fetch(`http://127.0.0.1:${port}/v1/models`)).rejects.toThrow();
    const target = parseEndpoint(`http://127.0.0.1:${port}/v1`);
    await expect(probeServer(target, undefined)).resolves.toEqual({ model: 'tiny', version: 'stub 1.0', ignoreEos: true });
    await expect(serverTokenize(target, 'tiny', 'a b c')).resolves.toEqual([1, 2, 3]);
    expect(await scrapeHistograms(target.root, {}, 'tiny')).not.toBeNull();
  });
});
