// kb lab <name> --endpoint for real: the CLI drives the fake OpenAI-compatible server
// (vLLM's formats) as a user's kb would drive vLLM: the report, the server-side split, the
// failures, the stored run in history, refused settings, a refused connection, Ctrl-C.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { runKbAsync, spawnKb } from '../helpers/kb-cli-async.ts';
import { startFakeServer, type FakeServer } from '../helpers/fake-openai-server.ts';
import { labRunStored } from '../helpers/lab-runs.ts';

/** Wide enough that no report line is wrapped (a pipe takes $COLUMNS): its sentences are matched whole. */
const WIDE = { COLUMNS: '400' };

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function serve(options: Parameters<typeof startFakeServer>[0]): Promise<FakeServer> {
  const server = await startFakeServer(options);
  servers.push(server);
  return server;
}
const small = ['--set', 'workload.requests=24', '--set', 'warmup=0'];

interface RunJson {
  status: string;
  backend: string;
  device: string;
  endpoint: { url: string; model: string; serverVersion: string | null; maxConcurrency: number | null };
  points: Array<{ metrics: Record<string, number>; report: { kind: string; client: { failures: unknown[] }; server: { available: boolean } } }>;
  checks: Array<{ metric: string; pass: boolean | null }>;
}

describe('kb lab --endpoint', () => {
  it('runs ttft-breakdown against a server, splits TTFT from /metrics, stores the run with the endpoint', async () => {
    const server = await serve({ slots: 4, prefillMs: 3, decodeMs: 1 });
    const env = { KB_DB: join(tempDir(), 'kb.db'), ...WIDE };
    const run = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', server.url, '--json', ...small], { env });
    expect(run.stderr).not.toMatch(/Error|at /);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as RunJson;
    expect(result).toMatchObject({ status: 'ok', backend: 'endpoint', endpoint: { url: server.url, model: 'gpt2', serverVersion: '0.0.0-fake', maxConcurrency: null } });
    const { metrics, report } = result.points[0];
    expect(report.kind).toBe('endpoint');
    expect(metrics).toMatchObject({ requests: 24, requests_failed: 0, output_tokens: 24 * 16, prompt_tokens: 24 * 8 });
    // 24 requests on 4 slots queue on the server: its mean queue time is most of the mean TTFT.
    expect(metrics['queue_wait.mean']).toBeGreaterThan(0);
    expect(metrics['queue_wait.mean'] + metrics['prefill_first.mean']).toBeLessThanOrEqual(metrics['ttft.mean']);
    expect(metrics['ttft.p99']).toBeGreaterThanOrEqual(metrics['ttft.p50']);
    expect(server.bodies.filter((b) => (b as { stream?: boolean }).stream)).toHaveLength(24);

    const text = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', server.url, '--max-concurrency', '8', ...small], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`gpt2 at ${server.url} (0.0.0-fake), at most 8 requests in flight`);
    expect(text.stdout).toContain('engine.*: set by the server');
    expect(text.stdout).toMatch(/Prompt lengths: exact \(GPT-2 BPE token ids, drawn locally\); output lengths exact \(ignore_eos\)/);
    expect(text.stdout).toMatch(/Successful requests: 24\s+Failed requests: 0/);
    expect(text.stdout).toMatch(/TTFT\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+/);
    expect(text.stdout).toMatch(/Server side, from \/metrics histogram deltas/);
    expect(text.stdout).toMatch(/\nQueue time\s+[\d.]+\s+\S+\s+\S+\s+\S+\n/);
    expect(text.stdout).toMatch(/p99 buckets:\s+queue time [(>]/);
    // At 80 columns the tables keep their columns (a row too wide was re-packed to fit).
    const narrow = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', server.url, ...small], { env: { ...env, COLUMNS: '80' } });
    const rows = narrow.stdout.split('\n').filter((line) => /^(Client side|Server side \(ms\)|TTFT|Queue time|Prefill time|Decode time)/.test(line));
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const line of rows) expect(line.length, line).toBe(68);

    const history = await runKbAsync(['lab', 'history', 'ttft-breakdown'], { env });
    expect(history.stdout).toContain(`endpoint ${server.url} · gpt2 · 0.0.0-fake`);
    const compare = await runKbAsync(['lab', 'compare', '1', '2'], { env });
    expect(compare.stdout).toMatch(/#2 ran on endpoint http/);
  }, 60_000);

  it("a check dividing the server's queue wait by TTFT takes the server's own TTFT, or says it mixes the two", async () => {
    // Means, which a histogram gives exactly: the fake server's queue waits fall in vLLM's first bucket (under 300 ms).
    const lab = readFileSync(join(repoRoot, 'lab/ttft-breakdown.md'), 'utf8').replace(
      /^expect:\n(?: .*\n)+/m,
      ['expect:', '  - metric: queue_wait.mean / ttft.mean', '    op: ">="', '    value: 0.1', '    say: queue wait is most of TTFT', '  - metric: ttft.p99 / tpot.p50', '    op: ">="', '    value: 1', '    say: the client alone', ''].join('\n'),
    );
    const root = writeKb({ 'lab/split.md': lab });
    const run = async (server: FakeServer) => {
      const text = await runKbAsync(['--kb', root, 'lab', 'split', '--endpoint', server.url, ...small], { env: WIDE });
      expect(text.code, text.stderr).toBe(0);
      return text.stdout;
    };
    const both = await run(await serve({ slots: 4, prefillMs: 3, decodeMs: 1 }));
    expect(both).toMatch(/queue_wait\.mean \/ ttft\.mean = [\d.]+ \(both from the server's \/metrics\); expected >= 0\.1/);
    expect(both).toMatch(/ttft\.p99 \/ tpot\.p50 = [\d.]+; expected >= 1/);
    const mixed = await run(await serve({ slots: 4, prefillMs: 3, decodeMs: 1, ttftHistogram: false }));
    expect(mixed).toMatch(
      /queue_wait\.mean \/ ttft\.mean = [\d.]+ \(mixed: queue_wait\.mean from the server's \/metrics, ttft\.mean from kb's client, the server giving none usable; two clocks, the client's with the network in it\); expected >= 0\.1/,
    );
    // Stored with the run: kb lab history --json and a card's lab panel say it too.
    const db = new Database(join(root, '.kb/kb.db'), { readonly: true });
    try {
      const rows = db.prepare("SELECT result FROM lab_runs WHERE lab = 'split' ORDER BY id").all() as Array<{ result: string }>;
      expect(rows.map((row) => (JSON.parse(row.result) as { checks: Array<{ sides: string | null }> }).checks[0].sides)).toEqual([
        "both from the server's /metrics",
        expect.stringMatching(/^mixed: /),
      ]);
    } finally {
      db.close();
    }
  }, 60_000);

  it('lists failed requests with their reasons, and says when the server has no metrics', async () => {
    const server = await serve({ failEvery: 5, metrics: false });
    const env = { KB_DB: join(tempDir(), 'kb.db'), ...WIDE };
    // 1,500 + 16 tokens is past gpt2-tiny's context, but the server's model decides that.
    const run = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', server.url, ...small, '--set', 'workload.promptTokens=1500'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Prompt tokens: 28500\s/); // 19 successful x 1,500
    // The probe is completion 1; of the 24 measured (2..25), 5, 10, 15, 20 and 25 fail.
    expect(run.stdout).toMatch(/Successful requests: 19\s+Failed requests: 5/);
    expect(run.stdout).toMatch(/Failed requests:\n\s+5 × HTTP 500: the fake engine failed on purpose/);
    expect(run.stdout).toMatch(/Server side: not available \(the server offers no Prometheus \/metrics with histograms\); client side only\./);
  }, 60_000);

  it('says that requests failed wherever the run shows: its note, history and compare', async () => {
    // 60 of 64 requests refused with HTTP 429 (kb serve --max-waiting 4) read as an "ok" run with
    // a fast TTFT in history and compare, the failures said only in the run's own report.
    const healthy = await serve({});
    const failing = await serve({ failEvery: 2 });
    const env = { KB_DB: join(tempDir(), 'kb.db'), ...WIDE };
    expect((await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', healthy.url, ...small], { env })).code).toBe(0);
    const run = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', failing.url, ...small], { env });
    expect(run.code).toBe(0);
    // The probe is completion 1; of the 24 measured (2..25), the even ones fail.
    const note = '12 of 24 measured requests failed: the figures and expectations are those of the 12 that succeeded';
    expect(run.stdout).toContain(`Note: ${note}`);
    const history = await runKbAsync(['lab', 'history', 'ttft-breakdown'], { env });
    expect(history.stdout).toContain(note);
    expect(history.stdout).toMatch(/requests_failed\s+0 -> 12 \(new\)/);
    const compare = await runKbAsync(['lab', 'compare', '1', '2'], { env });
    expect(compare.stdout).toMatch(/requests_failed\s+0\s+12\s+new/);
  }, 60_000);

  it("says when requests of load-sweep's capacity burst failed: every point's rate follows from it", async () => {
    // kb serve --max-waiting 4 refused 44 of a 48-request burst with HTTP 429: the capacity was
    // that of the 4 let in, and the sweep's rates with it, the failures shown nowhere.
    const failing = await serve({ failEvery: 2 });
    const env = { KB_DB: join(tempDir(), 'kb.db'), ...WIDE };
    const run = await runKbAsync(['lab', 'load-sweep', '--endpoint', failing.url, '--set', 'workload.requests=8', '--set', 'workload.outputTokens=2'], { env });
    expect(run.code).toBe(0);
    // The probe is completion 1, the burst's warm-up 2..9, its measured requests 10..17: 4 fail.
    expect(run.stdout).toMatch(/Note: 4 of 8 requests of the capacity burst failed: the capacity \([\d.]+ req\/s\), and each point's rate, is that of the ones that succeeded; measured requests failed at 0\.5 \(4 of 8\), 1 \(4 of 8\), 2 \(4 of 8\), 4 \(4 of 8\)/);
  }, 60_000);

  it("says why an expectation's metric is missing: a bound of the server's first bucket, no /metrics, or kb's engine alone", async () => {
    // Against vLLM (queue and prefill buckets from 0.3 s) ttft-breakdown said "queue_wait.p99
    // was not measured" beside a table showing it "<=300.00"; batch-size-sweep, "decode.tokens_per_s
    // was not measured", as if the run had lost it.
    const fast = await serve({ slots: 8, prefillMs: 1, decodeMs: 1 });
    const bare = await serve({ metrics: false });
    const env = { KB_DB: join(tempDir(), 'kb.db'), ...WIDE };
    const bounded = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', fast.url, ...small], { env });
    expect(bounded.stdout).toContain("queue_wait.p99 / ttft.p99 = ? (queue_wait.p99 is only known to be <= 300 ms, the first bucket of the server's vllm:request_queue_time_seconds: too coarse to judge)");
    const none = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', bare.url, ...small], { env });
    expect(none.stdout).toContain("(queue_wait.p99 comes from the server's /metrics: the server offers no Prometheus /metrics with histograms)");
    const sweep = await runKbAsync(['lab', 'batch-size-sweep', '--endpoint', fast.url, '--points', '1,8', '--set', 'repeats=1'], { env });
    expect(sweep.code).toBe(0);
    expect(sweep.stdout).toContain("(decode.tokens_per_s is counted inside kb's own engine, and a server's engine is not visible over --endpoint)");
    expect(sweep.stdout).not.toMatch(/was not measured/);
  }, 60_000);

  it('sends the key from --api-key-env and stores no credential', async () => {
    const server = await serve({ apiKey: 'sk-secret-123' });
    const dir = tempDir();
    const env = { KB_DB: join(dir, 'kb.db'), MY_KEY: 'sk-secret-123', ...WIDE };
    const refused = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', server.url, ...small], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`kb: ${server.url}: HTTP 401: Unauthorized (the server wants an API key: put it in an environment variable and name it with --api-key-env, e.g. --api-key-env VLLM_API_KEY)\n`);
    const withUser = server.url.replace('http://', 'http://me:pw-456@');
    const run = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', withUser, '--api-key-env', 'MY_KEY', ...small], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Successful requests: 24/);
    expect(run.stdout).not.toContain('pw-456');
    const stored = readFileSync(join(dir, 'kb.db')).toString('latin1') + (existsSync(join(dir, 'kb.db-wal')) ? readFileSync(join(dir, 'kb.db-wal')).toString('latin1') : '');
    expect(stored).toContain(server.url);
    expect(stored).not.toContain('sk-secret-123');
    expect(stored).not.toContain('pw-456');
  }, 60_000);

  it('refuses settings the server owns, and endpoint flags without --endpoint', async () => {
    const env = { KB_DB: join(tempDir(), 'kb.db'), ...WIDE };
    const engine = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', 'http://127.0.0.1:9/v1', '--set', 'engine.prefillMaxBatch=256'], { env });
    expect(engine.code).toBe(1);
    expect(engine.stderr).toBe('kb: --set engine.prefillMaxBatch: set by the server when --endpoint is given (change it where the server is started); only workload.*, warmup, repeats and slo.* apply\n');
    const backend = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', 'http://127.0.0.1:9/v1', '--backend', 'cpu'], { env });
    expect(backend.stderr).toBe('kb: --backend: set by the server when --endpoint is given\n');
    const stray = await runKbAsync(['lab', 'ttft-breakdown', '--max-concurrency', '4'], { env });
    expect(stray.stderr).toBe('kb: --max-concurrency needs --endpoint URL (it is about a server)\n');
    const timeout = await runKbAsync(['lab', 'ttft-breakdown', '--request-timeout', '5'], { env });
    expect(timeout.stderr).toBe('kb: --request-timeout needs --endpoint URL (it is about a server)\n');
    const model = await runKbAsync(['lab', 'ttft-breakdown', '--model', 'gpt2'], { env });
    expect(model.stderr).toMatch(/^kb: --model needs --endpoint URL \(it is about a server; the bundled engine's model is --set model=\.\.\.\)/);
    // The device is the sim's: on a real backend it would be stored as a change that changed nothing.
    const device = await runKbAsync(['lab', 'ttft-breakdown', '--set', 'device=H200'], { env });
    expect(device.code).toBe(1);
    expect(device.stderr).toBe('kb: --set device=H200: the device is what the sim backend models; it does nothing on cpu (add --backend sim)\n');
    const sweep = await runKbAsync(['lab', 'batching', '--endpoint', 'http://127.0.0.1:9/v1'], { env });
    expect(sweep.stderr).toMatch(/^kb: lab batching sweeps engine\.policy, which the server sets: it cannot run with --endpoint/);
    const zero = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', 'http://127.0.0.1:9/v1', '--max-concurrency', '0'], { env });
    expect(zero.stderr).toBe('kb: --max-concurrency 0: expected a whole number > 0\n');
  }, 60_000);

  it("--preset under --endpoint: the preset's workload, the server's engine", async () => {
    const server = await serve({ slots: 8, prefillMs: 1, decodeMs: 0 });
    const env = { KB_DB: join(tempDir(), 'kb.db'), ...WIDE };
    const run = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', server.url, '--preset', 'seed-003', '--set', 'workload.requests=8', '--set', 'workload.outputTokens=4', '--json'], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('kb: --preset seed-003: only its workload applies with --endpoint (model, backend, device, engine.maxNumSeqs, engine.prefillMaxBatch, engine.prefixCaching: the server\'s)\n');
    const result = JSON.parse(run.stdout) as RunJson & { changed: Record<string, unknown> };
    expect(Object.keys(result.changed).sort()).toEqual(['workload.outputTokens', 'workload.promptTokens', 'workload.requests']);
    expect(result.points[0].metrics).toMatchObject({ requests: 8, prompt_tokens: 8 * 4 });
  }, 60_000);

  it('a refused connection is one line and stores nothing', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const env = { KB_DB: join(tempDir(), 'kb.db'), ...WIDE };
    const run = await runKbAsync(['lab', 'ttft-breakdown', '--endpoint', `http://127.0.0.1:${port}/v1`], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`kb: http://127.0.0.1:${port}/v1: connection refused (is the server running, and on this port?)\n`);
    const history = await runKbAsync(['lab', 'history', 'ttft-breakdown'], { env });
    expect(history.stdout).toMatch(/none yet/);
  }, 60_000);

  it('a server gone mid-run stops the run: nothing more is sent, stored as partial with the cause, exit 1', async () => {
    // kill -9 of kb serve during run 2 of 3: every remaining request was sent and refused, and
    // the run stored "ok" (exit 0), its note counting the failures.
    const server = await serve({ slots: 4, prefillMs: 2, decodeMs: 2 });
    const env = { KB_DB: join(tempDir(), 'kb.db'), ...WIDE };
    const { done } = spawnKb(['lab', 'ttft-breakdown', '--endpoint', server.url, '--set', 'workload.requests=16', '--set', 'workload.outputTokens=4', '--set', 'warmup=0', '--set', 'repeats=20'], { env });
    const started = Date.now();
    while (server.completions < 40 && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.close();
    const run = await done;
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^kb: lab ttft-breakdown stopped: the server at http:\/\/127\.0\.0\.1:\d+\/v1 stopped answering \(connection (refused|reset)\) after \d+ requests \(stored as partial, run #1\)$/m);
    expect(run.stdout).toMatch(/Note: the server at .* stopped answering/);
    expect(run.stdout).toContain('Run #1 stored (partial: its settings, no figures)');
    const db = new Database(env.KB_DB, { readonly: true });
    try {
      const row = db.prepare('SELECT status, result FROM lab_runs').get() as { status: string; result: string };
      expect(row.status).toBe('partial');
      expect((JSON.parse(row.result) as { note: string }).note).toMatch(/stopped answering \(connection (refused|reset)\) after \d+ requests$/);
    } finally {
      db.close();
    }
  }, 60_000);

  it.each(['SIGINT', 'SIGTERM'] as const)('%s (Ctrl-C, or timeout and CI) stops the requests in flight and stores the partial run', async (signal) => {
    // 2 slots, 16 tokens at 40 ms: 24 requests take ~8 s; interrupt once some have finished.
    const server = await serve({ slots: 2, decodeMs: 40 });
    const env = { KB_DB: join(tempDir(), 'kb.db'), ...WIDE };
    const { child, done } = spawnKb(['lab', 'ttft-breakdown', '--endpoint', server.url, ...small], { env });
    const started = Date.now();
    while (server.finished < 5 && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill(signal);
    const run = await done;
    expect(run.code).toBe(130);
    // "Ctrl-C again" only to someone who pressed it (found as a scripter: a SIGTERM from timeout said it too).
    expect(run.stderr).toMatch(signal === 'SIGINT' ? /stopping the lab, storing the partial run \(Ctrl-C again: quit at once\)$/m : /stopping the lab, storing the partial run \(SIGTERM\)$/m);
    expect(run.stdout).toMatch(/--- interrupted: requests finished so far ---/);
    expect(run.stdout).toMatch(/Run #1 stored \(partial\)/);
    const history = await runKbAsync(['lab', 'history', 'ttft-breakdown'], { env });
    expect(history.stdout).toMatch(/#1 .* partial .* endpoint http/);
  }, 60_000);

  it('a SIGTERM while kb asks a silent server what it serves says so, exits 130 and stores nothing', async () => {
    const sockets: import('node:net').Socket[] = [];
    let connected: () => void = () => {};
    const reached = new Promise<void>((resolve) => (connected = resolve));
    const silent = createServer((socket) => {
      sockets.push(socket);
      connected();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const env = { KB_DB: join(tempDir(), 'kb.db') };
      const { child, done } = spawnKb(['lab', 'ttft-breakdown', '--endpoint', `http://127.0.0.1:${(silent.address() as { port: number }).port}/v1`], { env });
      await reached;
      child.kill('SIGTERM');
      const run = await done;
      // Unhandled, SIGTERM ended kb with 143 and not a word.
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toContain('kb: stopped (SIGTERM) before the run started; nothing was stored');
      expect(labRunStored(env.KB_DB)).toBe(false);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 60_000);
});
