// Do clients nobody here wrote measure what kb's endpoint client measures? The official
// `openai` clients for Node (a devDependency) and for Python (from this machine's local
// package index, in a venv given by --python; left out when it has no openai) take turns with
// kb's client on the same burst against the same server (the test suite's fake, in its own
// process, with fixed delays); prints each one's TTFT p50 and output throughput and
// kb / openai. The goal: within 5%.
//   python3 -m venv /tmp/venv && /tmp/venv/bin/pip install openai
//   node --import tsx bench/client-agreement/run.ts [--python /tmp/venv/bin/python] [--requests 64] [--rounds 3]
import { spawn, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentile } from '../../src/engine/metrics/percentile.ts';
import { summarizeRequests } from '../../src/lab/endpoint/measure.ts';
import { replay, type EndpointSession } from '../../src/lab/endpoint/run-point.ts';
import { parseEndpoint } from '../../src/lab/endpoint/target.ts';
import { openaiNodeBurst } from './openai-node.ts';

const { values } = parseArgs({
  options: {
    python: { type: 'string', default: 'python3' },
    requests: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '3' },
    prompt: { type: 'string', default: '8' },
    tokens: { type: 'string', default: '32' },
  },
});
const n = Number(values.requests);
const promptTokens = Number(values.prompt);
const maxTokens = Number(values.tokens);
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

const check = spawnSync(values.python, ['-c', 'import openai; print(openai.__version__)'], { encoding: 'utf8' });
const withPython = check.status === 0;
if (!withPython) console.log(`Python client left out: ${values.python} has no openai package (${check.stderr.trim().split('\n').pop()})`);
// 8 slots, 5 ms prefill, 3 ms a token: TTFT is mostly queueing behind the slots, as in a lab.
const server = spawn(process.execPath, ['--import', 'tsx', here('./serve-fake.ts'), '8', '5', '3'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve) => server.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
const session: EndpointSession = { target: parseEndpoint(url), server: { model: 'gpt2', version: null, ignoreEos: true }, maxConcurrency: null };
const requests = Array.from({ length: n }, (_, i) => ({
  prompt: Array.from({ length: promptTokens }, (_, k) => (i * 7919 + k * 31) % 50000),
  promptTokens,
  maxTokens,
  arrivalMs: 0,
}));

type Figures = { ttft: number; tps: number };
const others: Array<{ name: string; run: () => Promise<Figures> }> = [
  {
    name: 'openai (Node)',
    run: async () => {
      const r = await openaiNodeBurst(url, 'gpt2', requests.map((request) => request.prompt), maxTokens);
      return { ttft: r.ttftP50Ms, tps: r.outputTps };
    },
  },
  ...(withPython
    ? [{
        name: `openai ${check.stdout.trim()} (Python)`,
        run: async () => {
          const out = spawnSync(values.python, [here('./openai_client.py'), url, 'gpt2', String(n), String(promptTokens), String(maxTokens)], { encoding: 'utf8' });
          if (out.status !== 0) throw new Error(`openai client failed: ${out.stderr}`);
          const r = JSON.parse(out.stdout) as { ttft_p50_ms: number; output_tps: number };
          return { ttft: r.ttft_p50_ms, tps: r.output_tps };
        },
      }]
    : []),
];

try {
  console.log(`kb's endpoint client vs ${others.map((o) => o.name).join(' and ')}: ${n} requests at once, prompt ${promptTokens}, ${maxTokens} tokens; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const kb: Figures[] = [];
  const theirs = others.map(() => [] as Figures[]);
  await replay(session, requests.slice(0, 8), undefined, () => {});
  for (let round = 1; round <= Number(values.rounds); round++) {
    const sent = await replay(session, requests, undefined, () => {});
    const summary = summarizeRequests(sent.map((s) => s.measured), { ttftMs: 0, tpotMs: 0 });
    if (summary.failed > 0) throw new Error(`kb's client: ${summary.failed} failed: ${JSON.stringify(summary.failures)}`);
    kb.push({ ttft: summary.ttftMs.p50, tps: summary.outputTokensPerS });
    const line = [`round ${round}: kb TTFT p50 ${kb.at(-1)!.ttft.toFixed(1)} ms, ${kb.at(-1)!.tps.toFixed(0)} tok/s`];
    for (const [i, other] of others.entries()) {
      const r = await other.run();
      theirs[i].push(r);
      line.push(`${other.name} ${r.ttft.toFixed(1)} ms, ${r.tps.toFixed(0)} tok/s`);
    }
    console.log(line.join('; '));
  }
  const med = (xs: number[]) => percentile(xs, 50);
  const [kt, kr] = [med(kb.map((x) => x.ttft)), med(kb.map((x) => x.tps))];
  for (const [i, other] of others.entries()) {
    const [ot, or] = [med(theirs[i].map((x) => x.ttft)), med(theirs[i].map((x) => x.tps))];
    console.log(`median vs ${other.name}: TTFT p50 kb ${kt.toFixed(1)} / ${ot.toFixed(1)} ms = ${(kt / ot).toFixed(3)}; throughput kb ${kr.toFixed(0)} / ${or.toFixed(0)} tok/s = ${(kr / or).toFixed(3)}  (goal: both within 0.95..1.05)`);
  }
  console.log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  server.kill('SIGTERM');
}
