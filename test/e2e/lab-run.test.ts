// kb lab <name> for real: a fast configuration of ttft-breakdown, its JSON, the history of
// stored runs, and Ctrl-C in the middle of a run.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kbBin, repoRoot, runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { spawnKb } from '../helpers/kb-cli-async.ts';
import { labRunStored } from '../helpers/lab-runs.ts';

interface RunJson {
  id: number;
  status: string;
  verdict: string;
  backend: string;
  changed: Record<string, unknown>;
  points: Array<{ label: string | null; metrics: Record<string, number>; report: { metrics: { requests: number } } }>;
  checks: Array<{ metric: string; say: string; measured: number; pass: boolean }>;
}

describe('kb lab ttft-breakdown', () => {
  it('--json on the sim backend: the report, every check, stored; history compares the last two runs', () => {
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    const capped = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--json'], { env });
    expect(capped.code).toBe(0);
    const first = JSON.parse(capped.stdout) as RunJson;
    expect(first).toMatchObject({ status: 'ok', verdict: 'reproduced', backend: 'sim', changed: { backend: 'sim' } });
    expect(first.points[0].report.metrics.requests).toBe(256);
    const ratio = first.checks.find((c) => c.metric === 'queue_wait.p99 / ttft.p99');
    expect(ratio).toMatchObject({ pass: true });
    expect(ratio!.measured).toBeGreaterThan(0.85);

    const lifted = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'engine.prefillMaxBatch=256'], { env });
    expect(lifted.code).toBe(0); // a completed run exits 0 whatever its verdict
    expect(lifted.stdout).toMatch(/Queue wait p50\/p95\/p99: [\d.]+\/[\d.]+\/[\d.]+ ms/);
    expect(lifted.stdout).toMatch(/Prefill->first token p50\/p95\/p99:/);
    expect(lifted.stdout).toMatch(/KV cache: \d+ blocks/);
    expect(lifted.stdout).toMatch(/✗ queue wait is at least 80% of TTFT p99\n\s+queue_wait\.p99 \/ ttft\.p99 = 0\.\d+; expected >= 0\.8 — not reproduced/);
    expect(lifted.stdout).toMatch(/Verdict: not reproduced \(0\/2 expectations hold\)/);

    const history = runKb(['lab', 'history', 'ttft-breakdown'], { env });
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/#2 .* ok\s+not reproduced\s+sim\s+backend=sim engine\.prefillMaxBatch=256/);
    expect(history.stdout).toMatch(/#1 .* ok\s+reproduced\s+sim\s+backend=sim/);
    expect(history.stdout).toMatch(/Last two runs compared \(#1 -> #2\):\n\s+setting engine\.prefillMaxBatch: 16 -> 256/);
    expect(history.stdout).toMatch(/queue_wait\.p99 .* -> .* \(-\d+%\)/);
    const json = JSON.parse(runKb(['lab', 'history', 'ttft-breakdown', '--json'], { env }).stdout) as { runs: Array<{ id: number; verdict: string }> };
    expect(json.runs.map((r) => [r.id, r.verdict])).toEqual([
      [2, 'not reproduced'],
      [1, 'reproduced'],
    ]);
    const list = runKb(['lab', 'list'], { env });
    expect(list.stdout.replace(/\n {2,}/g, ' ')).toMatch(/ttft-breakdown .*\[last run #2 on sim: not reproduced\]/);
  }, 90_000);

  it('a lab without expectations: --json says "no expectations", not "reproduced", and so do history, compare and list', () => {
    const bundled = readFileSync(join(repoRoot, 'lab/ttft-breakdown.md'), 'utf8');
    const own = bundled.replace(/^expect:\n(?: .*\n)+/m, '');
    expect(own, 'lab/ttft-breakdown.md has an expect: block to take out').not.toBe(bundled);
    const root = writeKb({ 'lab/mine.md': own });
    const run = runKb(['--kb', root, 'lab', 'mine', '--backend', 'sim', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ok', verdict: 'no expectations', checks: [] });
    const history = JSON.parse(runKb(['--kb', root, 'lab', 'history', 'mine', '--json']).stdout) as { runs: Array<{ verdict: string | null; result: { verdict: string } }> };
    expect(history.runs[0]).toMatchObject({ verdict: 'no expectations', result: { verdict: 'no expectations' } });
    const list = JSON.parse(runKb(['--kb', root, 'lab', 'list', '--json']).stdout) as { labs: Array<{ name: string; lastRun: { verdict: string } | null }> };
    expect(list.labs.find((lab) => lab.name === 'mine')?.lastRun?.verdict).toBe('no expectations');
    // The text still gives no verdict, as the report and kb lab history do (compare said "reproduced").
    expect(runKb(['--kb', root, 'lab', 'mine', '--backend', 'sim']).code).toBe(0);
    const compare = runKb(['--kb', root, 'lab', 'compare', '1', '2']);
    expect(compare.stdout).toMatch(/^ {2}verdict +- +-$/m);
  }, 60_000);

  it('runs on the cpu backend with a small burst', () => {
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    const run = runKb(['lab', 'ttft-breakdown', '--set', 'workload.requests=32', '--set', 'warmup=0', '--json'], { env, timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as RunJson;
    expect(result.status).toBe('ok');
    expect(result.points[0].metrics.requests).toBe(32);
    expect(result.points[0].metrics['queue_wait.p99']).toBeGreaterThan(result.points[0].metrics['queue_wait.p50']);
    // Progress went to stderr, never into the JSON on stdout.
    expect(run.stderr).toMatch(/\d+\/32 requests · run 1\/1/);
  }, 90_000);

  it('--json names the sim\'s device only on the sim: on cpu it said settings.device "A100-40GB", which nothing read (found by a session)', () => {
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    const small = ['--set', 'workload.requests=4', '--set', 'workload.outputTokens=4', '--json'];
    type Settings = Record<string, unknown>;
    type Json = { backend: string; settings: Settings; points: Array<{ settings: Settings }> };
    const cpu = runKb(['lab', 'paged-kv', ...small], { env });
    expect(cpu.code, cpu.stderr).toBe(0);
    const sim = runKb(['lab', 'paged-kv', '--backend', 'sim', ...small], { env });
    expect(sim.code, sim.stderr).toBe(0);
    const [onCpu, onSim] = [cpu, sim].map((run) => JSON.parse(run.stdout) as Json);
    expect(onCpu.backend).toBe('cpu');
    expect(onCpu.settings).toMatchObject({ backend: 'cpu', model: 'gpt2-tiny', engine: { kvBudgetMB: 4 } });
    for (const settings of [onCpu.settings, ...onCpu.points.map((p) => p.settings)]) expect(settings).not.toHaveProperty('device');
    for (const settings of [onSim.settings, ...onSim.points.map((p) => p.settings)]) expect(settings).toMatchObject({ backend: 'sim', device: expect.any(String) });
    // The stored runs, as kb lab history --json gives them (and compare, in the same shape).
    const history = JSON.parse(runKb(['lab', 'history', 'paged-kv', '--json'], { env }).stdout) as { runs: Array<{ backend: string; settings: Settings; result: { points: Array<{ settings: Settings }> } }> };
    const [storedSim, storedCpu] = history.runs;
    expect(storedCpu.backend).toBe('cpu');
    for (const settings of [storedCpu.settings, ...storedCpu.result.points.map((p) => p.settings)]) expect(settings).not.toHaveProperty('device');
    for (const settings of [storedSim.settings, ...storedSim.result.points.map((p) => p.settings)]) expect(settings).toHaveProperty('device');
    // The text never named it on cpu.
    expect(runKb(['lab', 'paged-kv', ...small.slice(0, -1)], { env }).stdout).toMatch(/^ {2}gpt2-tiny on cpu\n/m);
  }, 90_000);

  it('Ctrl-C mid-run exits cleanly with 130 and stores the run as partial', async () => {
    const home = tempDir('kb-home-');
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      XDG_DATA_HOME: join(home, '.local/share'),
      XDG_CONFIG_HOME: join(home, '.config'),
      KB_DB: join(home, 'kb.db'),
      NO_COLOR: '1',
    };
    const child = spawn(process.execPath, [kbBin, 'lab', 'ttft-breakdown', '--set', 'warmup=0', '--set', 'workload.requests=64'], { env, cwd: home });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    // The first progress line appears when the engine is running: interrupt then.
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/requests · run/.test(stderr) && !child.killed) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(130);
    expect(stderr).toMatch(/stopping the lab, storing the partial run \(Ctrl-C again: quit at once\)$/m);
    expect(stdout).toMatch(/Run #1 stored \(partial\)/);
    // Requests the interrupt stopped are not failures of the engine.
    expect(stdout).not.toMatch(/\d+ failed/);
    const history = runKb(['lab', 'history', 'ttft-breakdown', '--json'], { env: { KB_DB: env.KB_DB } });
    const runs = (JSON.parse(history.stdout) as { runs: Array<{ status: string; finishedAt: number | null; verdict: string }> }).runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'partial', verdict: 'incomplete' });
    expect(runs[0].finishedAt).not.toBeNull();
  }, 60_000);

  it('Ctrl-C on a pipe before any request finished says so: no report of zeros, and what was stored', async () => {
    // gpt2 (124M) on the cpu: the engine takes a while to start and no request of 200 tokens
    // finishes for many seconds, so the stop lands before any did. stdout and stderr are pipes.
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    const { child, done } = spawnKb(['lab', 'ttft-breakdown', '--set', 'model=gpt2', '--set', 'warmup=0', '--set', 'workload.requests=8', '--set', 'workload.outputTokens=200'], { env });
    // The run has started once its row is stored (nothing is printed on a pipe before a run ends).
    const started = Date.now();
    while (!labRunStored(env.KB_DB) && Date.now() - started < 30_000) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGINT');
    const run = await done;
    expect(run.code).toBe(130);
    expect(run.stdout).toMatch(/Note: interrupted before any request finished: nothing was measured\n/);
    expect(run.stdout).toMatch(/Run #1 stored \(partial: its settings, no figures\)/);
    expect(run.stdout).toMatch(/queue_wait\.p99 \/ ttft\.p99 = \? \(the run was interrupted before any request\s+finished\)/);
    // No engine table of zeros reads as a measurement.
    expect(run.stdout).not.toMatch(/streaming benchmark|Throughput|Requests: |0\.00 tokens\/s/);
    // The pipe's progress line gives the clock at the stop, as the terminal's bar does, not 0.0 s.
    const line = run.stderr.match(/0\/8 requests · run 1\/1 · ([\d.]+) s/);
    expect(line, run.stderr).not.toBeNull();
    expect(Number(line![1])).toBeGreaterThan(0);
    const history = JSON.parse(runKb(['lab', 'history', 'ttft-breakdown', '--json'], { env }).stdout) as { runs: Array<{ status: string; result: { points: unknown[]; note: string } }> };
    expect(history.runs[0]).toMatchObject({ status: 'partial', result: { points: [], note: 'interrupted before any request finished: nothing was measured' } });
  }, 90_000);
});
