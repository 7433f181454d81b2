// Is kb's endpoint client ever the bottleneck? It drives a server that answers instantly
// (instant-server.ts, its own process) with tiny streaming completions at several
// concurrencies, next to a bare node:http client doing the same requests without SSE
// parsing or timing, in one run. Reports requests/s and the client's CPU time per request
// (the per-request overhead). Goals: >= 2,000 requests/s, < 0.2 ms of client CPU per request.
//   node --import tsx bench/endpoint-client/run.ts [--requests 20000] [--concurrency 1,16,64]
import { spawn } from 'node:child_process';
import { request, Agent } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { streamCompletion } from '../../src/lab/endpoint/stream-client.ts';
import { parseEndpoint } from '../../src/lab/endpoint/target.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '20000' }, concurrency: { type: 'string', default: '1,16,64' } } });
const total = Number(values.requests);
const levels = values.concurrency.split(',').map(Number);

const server = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./instant-server.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve) => server.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
const url = `http://127.0.0.1:${port}/v1`;
const target = parseEndpoint(url);
const body = { model: 'gpt2', prompt: [1, 2, 3, 4, 5, 6, 7, 8], maxTokens: 1, ignoreEos: true };

async function kbClient(): Promise<boolean> {
  const outcome = await streamCompletion(target, body);
  return outcome.error === null && outcome.chunkTimes.length === 1;
}

const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const payload = JSON.stringify({ model: 'gpt2', prompt: body.prompt, max_tokens: 1, stream: true, stream_options: { include_usage: true }, ignore_eos: true });
function bareClient(): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${url}/completions`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('error', () => resolve(false));
    req.end(payload);
  });
}

async function drive(client: () => Promise<boolean>, concurrency: number, n: number) {
  let next = 0;
  let failed = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next += 1;
        if (!(await client())) failed += 1;
      }
    }),
  );
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { rps: (n * 1000) / wallMs, cpuMsPerRequest: (used.user + used.system) / 1000 / n, failed };
}

console.log(`endpoint client vs bare node:http, ${total} requests each, instant server in its own process; ${availableParallelism()} cores, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
// Warm both (JIT, sockets).
await drive(kbClient, 16, 2000);
await drive(bareClient, 16, 2000);
console.log('concurrency  client      requests/s  client CPU ms/request  failed');
for (const c of levels) {
  const kb = await drive(kbClient, c, total);
  const bare = await drive(bareClient, c, total);
  for (const [name, r] of [['kb (undici+SSE)', kb], ['bare http', bare]] as const) {
    console.log(`${String(c).padStart(11)}  ${name.padEnd(14)} ${r.rps.toFixed(0).padStart(8)}  ${r.cpuMsPerRequest.toFixed(3).padStart(21)}  ${r.failed}`);
  }
  console.log(`${''.padStart(11)}  kb / bare: requests/s ${(kb.rps / bare.rps).toFixed(2)}x, CPU per request ${(kb.cpuMsPerRequest / bare.cpuMsPerRequest).toFixed(2)}x`);
}
console.log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
agent.destroy();
server.kill('SIGTERM');
