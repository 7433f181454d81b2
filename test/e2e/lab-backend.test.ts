// kb lab --backend cpu|webgpu|auto|sim and --profile through the real CLI. The webgpu run uses
// lavapipe here and in CI, where a missing adapter fails the file (test/engine/webgpu-adapter.ts).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noAdapter } from '../engine/webgpu-adapter.ts';
import { kbBin, kbEnv, runKb, tempDir } from '../helpers/kb-cli.ts';
import { labRunStored } from '../helpers/lab-runs.ts';
import { TmuxKb } from '../helpers/tmux.ts';

const SLOW = 300_000;
// Vulkan's loader finds no driver through a missing ICD file: Dawn then has no adapter (Linux).
const NO_VULKAN = { VK_ICD_FILENAMES: '/nonexistent/kb-no-icd.json' };

interface RunJson {
  status: string;
  verdict: string;
  backend: string;
  device: string;
  settings: { backend: string; profile: boolean };
  points: Array<{ report: { engine: { backend: string; description: string }; profile?: { kernels: Array<{ kernel: string; calls: number }> } } }>;
  checks: Array<{ metric: string; measured: number; pass: boolean }>;
}

describe('kb lab --backend', () => {
  it('refuses an unknown backend, naming the four', () => {
    const r = runKb(['lab', 'ttft-breakdown', '--backend', 'cuda'], { env: { KB_DB: join(tempDir(), 'kb.db') } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('kb: --backend: unknown backend "cuda"; choose one of cpu, webgpu, auto, sim\n');
  });

  it('lists the four backends and --profile in --help', () => {
    const r = runKb(['lab', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--backend <backend>\s+cpu \(computes on this CPU\), webgpu .*auto .*sim/s);
    expect(r.stdout).toMatch(/--profile\s+time every kernel/);
  });

  it('sim prints the backend line after the settings', () => {
    // COLUMNS: no report line wrapped (a pipe takes $COLUMNS), so each is matched whole.
    const r = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'workload.requests=32'], { env: { KB_DB: join(tempDir(), 'kb.db'), COLUMNS: '400' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Settings:\n(  .*\n){4}Backend: sim, simulated A100-40GB; KV capacity: 40\.00 GiB memory - \S+ [MG]iB weights - 4\.00 GiB reserve = \S+ GiB -> 16384 blocks x 16 tokens \(capped: 256 sequences x 1024 tokens\)  \[virtual clock\]\n/m);
  });

  it('webgpu without an adapter ends with the engine\'s one line on how to get one', { timeout: SLOW }, () => {
    const r = runKb(['lab', 'ttft-breakdown', '--backend', 'webgpu', '--set', 'workload.requests=4'], { env: { ...NO_VULKAN, KB_DB: join(tempDir(), 'kb.db') }, timeoutMs: SLOW });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const last = r.stderr.trimEnd().split('\n').at(-1);
    expect(last).toMatch(/^kb: WebGPU found no adapter\. VK_ICD_FILENAMES=\S+ names no Vulkan driver manifest [^\n]*$/);
    expect(r.stderr).not.toMatch(/vkCreateInstance|\.cpp:\d+/); // Dawn's warning, before kb's line
  });

  it('webgpu without a Vulkan driver is refused before anything runs or is stored, also as --compare\'s measured backend', { timeout: SLOW }, () => {
    // --compare webgpu ran the sim's run and stored it, then failed on the second; a plain webgpu
    // run was stored as failed. Now each is one line, exit 1, and no run.
    const db = join(tempDir(), 'kb.db');
    const plain = runKb(['lab', 'ttft-breakdown', '--backend', 'webgpu', '--set', 'workload.requests=4'], { env: { ...NO_VULKAN, KB_DB: db }, timeoutMs: SLOW });
    const compared = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--compare', 'webgpu', '--set', 'workload.requests=4'], { env: { ...NO_VULKAN, KB_DB: db }, timeoutMs: SLOW });
    for (const r of [plain, compared]) {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^kb: WebGPU found no adapter\. VK_ICD_FILENAMES=\S+ names no Vulkan driver manifest [^\n]*\n$/);
    }
    expect(compared.stderr).toBe(plain.stderr);
    expect(runKb(['lab', 'history'], { env: { KB_DB: db } }).stdout).toMatch(/^No lab runs yet\./);
  });

  it('auto is stored and shown as the backend it chose: the header, kb lab history and --json', { timeout: SLOW }, () => {
    // Without a Vulkan driver auto takes the cpu. The run was stored and listed as "auto", and the
    // report's header said "gpt2-tiny on auto": only its Backend: line said which one ran.
    const env = { ...NO_VULKAN, KB_DB: join(tempDir(), 'kb.db'), COLUMNS: '400' };
    const r = runKb(['lab', 'ttft-breakdown', '--backend', 'auto', '--set', 'workload.requests=4'], { env, timeoutMs: SLOW });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Settings:\n {2}gpt2-tiny on cpu \(chosen by auto\)\n/m);
    expect(r.stdout).toMatch(/^Backend: cpu, .*\(auto: no WebGPU adapter\)$/m);
    const history = runKb(['lab', 'history', '--json'], { env });
    const [run] = (JSON.parse(history.stdout) as { runs: Array<{ backend: string; settings: { backend: string } }> }).runs;
    // The backend that ran; the settings keep what was asked for.
    expect(run).toMatchObject({ backend: 'cpu', settings: { backend: 'auto' } });
    expect(runKb(['lab', 'history'], { env }).stdout).toMatch(/^ {2}#1 .* ok +not reproduced +cpu +backend=auto workload\.requests=4$/m);
    expect(runKb(['lab', 'list'], { env }).stdout).toMatch(/\[last run #1 on cpu: /);
  });
});

// A Dawn abort was seen about once in ten webgpu runs here (reported to the engine's owner): one retry.
describe.skipIf(noAdapter)('kb lab --backend webgpu', () => {
  it('ttft-breakdown reproduces its expectation on the adapter, with the kernel profile', { timeout: SLOW, retry: 1 }, () => {
    // The lab's shape scaled down: 256 requests admitted 16 per step become 24 admitted 1 per step.
    const args = ['lab', 'ttft-breakdown', '--backend', 'webgpu', '--profile', '--set', 'workload.requests=24', '--set', 'engine.prefillMaxBatch=1', '--set', 'workload.outputTokens=4'];
    const r = runKb([...args, '--json'], { env: { KB_DB: join(tempDir(), 'kb.db') }, timeoutMs: SLOW });
    expect(r.code, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as RunJson;
    expect(run).toMatchObject({ status: 'ok', verdict: 'reproduced', backend: 'webgpu', settings: { backend: 'webgpu', profile: true } });
    expect(run.device).toMatch(/^webgpu on /);
    expect(run.points[0].report.engine.backend).toBe('webgpu');
    expect(run.points[0].report.profile?.kernels.map((k) => k.kernel)).toContain('lm head');
    for (const check of run.checks) expect(check.pass).toBe(true);
  });

  it('Ctrl-C twice while the engine warms up quits at once by the signal: no Dawn abort (exit 134)', { timeout: SLOW }, async () => {
    // Mesa's shader cache off: every kernel is compiled at the warm-up, which then lasts seconds
    // (a minute on a loaded 2-core machine), with Dawn waiting on the GPU queue all along.
    const home = tempDir('kb-home-');
    const env = { ...kbEnv(home), KB_DB: join(home, 'kb.db'), MESA_SHADER_CACHE_DISABLE: 'true' };
    const child = spawn(process.execPath, [kbBin, 'lab', 'ttft-breakdown', '--backend', 'webgpu', '--set', 'workload.requests=4'], { env, cwd: home });
    const timer = setTimeout(() => child.kill('SIGKILL'), SLOW - 10_000);
    const closed = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
    let stderr = '';
    let second = false;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (!second && /stopping the lab/.test(stderr)) {
        second = true;
        setTimeout(() => child.kill('SIGINT'), 300);
      }
    });
    // The run is stored as it starts, before the engine (nothing is printed on a pipe till the
    // end): the first Ctrl-C lands in the warm-up, a second after.
    const started = Date.now();
    while (!labRunStored(env.KB_DB) && Date.now() - started < 60_000) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    child.kill('SIGINT');
    const [code, signal] = await closed;
    clearTimeout(timer);
    expect(second, stderr).toBe(true);
    // Ended by SIGINT itself, which a shell reports as 130 (or exit 130 where it was ignored).
    expect(signal === 'SIGINT' || code === 130, `code ${code}, signal ${signal}\n${stderr}`).toBe(true);
    expect(stderr).not.toMatch(/Promise not resolved|Aborted/);
  });

  it('the first Ctrl-C while the engine starts says at once that the stop waits for it, and the bar stops', { timeout: SLOW }, async () => {
    // With Mesa's shader cache off the engine takes seconds to a minute to start (every kernel
    // compiled), and an abort is seen only after: the bar ran on under "stopping the lab,
    // storing the partial run" all that time, as if the Ctrl-C had been lost.
    const home = tempDir('kb-home-');
    const env = Object.fromEntries(
      Object.entries({ ...kbEnv(home), KB_DB: join(home, 'kb.db'), MESA_SHADER_CACHE_DISABLE: 'true', TERM: 'xterm-256color' }).filter((e): e is [string, string] => e[1] !== undefined),
    );
    const tmux = new TmuxKb({ pollMs: 200 });
    const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
    try {
      // exec: kb is the pane's process, so Ctrl-C reaches it alone.
      tmux.startProgram(['sh', '-c', `cd ${quote(home)} && exec ${[process.execPath, kbBin, 'lab', 'ttft-breakdown', '--backend', 'webgpu', '--set', 'workload.requests=4'].map(quote).join(' ')}`], env);
      // The bar is drawn once the run is stored, as the engine starts.
      await tmux.waitFor(/0\/4 requests · warm-up 1\/1/);
      tmux.send('C-c');
      const stopping = await tmux.waitFor(/Ctrl-C again: quit at once\)/);
      expect(stopping.replace(/\s+/g, ' ')).toMatch(/kb: stopping the lab once its engine has started \(a webgpu engine compiles its kernels first: minutes with a cold shader cache\), then storing the partial run \(Ctrl-C again: quit at once\)/);
      // The bar stays as it was at the Ctrl-C: its clock no longer runs.
      const bar = (screen: string) => screen.split('\n').filter((line) => /requests · warm-up/.test(line)).at(-1);
      const before = bar(stopping);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      if (tmux.running()) expect(bar(tmux.screen())).toBe(before);
      tmux.send('C-c');
      await tmux.waitForExit(30_000);
    } finally {
      tmux.stop();
    }
  });
});
