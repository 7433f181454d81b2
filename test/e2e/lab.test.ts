// kb lab list | history and the refusals that happen before any engine work.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { repoRoot, runKb, withBundledLabs, writeKb } from '../helpers/kb-cli.ts';

const labText = (title: string) => `---
title: ${title}
summary: A small lab for the CLI tests.
workload:
  requests: 4
expect:
  - metric: ttft.p99
    op: ">"
    value: 0
    say: the first token takes some time
---
Exercise text.
`;

describe('kb lab list', () => {
  it('lists the bundled labs, ttft-breakdown among them', () => {
    const run = runKb(['lab', 'list']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ttft-breakdown\s+TTFT breakdown: queue wait vs prefill/m);
  });

  it('kb lab with no name lists the labs too', () => {
    const run = runKb(['lab']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ttft-breakdown\s+TTFT breakdown/m);
  });

  it('--json lists every lab of a knowledge base, a broken one with its error, then kb\'s own behind them', () => {
    const kb = writeKb({ 'lab/alpha.md': labText('Alpha'), 'lab/broken.md': labText('Broken').replace('requests: 4', 'requests: -1') });
    const run = runKb(['--kb', kb, 'lab', 'list', '--json']);
    expect(run.code).toBe(0);
    const listing = JSON.parse(run.stdout) as { labs: Array<{ name: string; file: string; title: string | null; error: string | null; expect: string[] }> };
    expect(listing.labs.map((l) => l.name)).toEqual(withBundledLabs(['alpha', 'broken']));
    const byName = (name: string) => listing.labs.find((l) => l.name === name)!;
    expect(byName('alpha')).toMatchObject({ file: 'lab/alpha.md', title: 'Alpha', error: null, expect: ['the first token takes some time'] });
    // One kb ships, read from kb's own lab folder (named by its full path).
    expect(byName('batching')).toMatchObject({ file: join(repoRoot, 'lab/batching.md'), error: null });
    expect(byName('broken').error).toMatch(/lab\/broken\.md:5: workload\.requests: must be integer 1\.\.100000, got -1/);
  });
});

describe('kb lab <name> refusals', () => {
  it('refuses an unknown --set key in one line, with the closest valid key and where the keys are listed', () => {
    const run = runKb(['lab', 'ttft-breakdown', '--set', 'engine.prefilMaxBatch=4']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('kb: --set engine.prefilMaxBatch=4: unknown setting "engine.prefilMaxBatch"; did you mean engine.prefillMaxBatch? (kb lab --help lists the keys)\n');
  });

  it('refuses an out-of-range or mistyped value, and an unknown backend', () => {
    const zero = runKb(['lab', 'ttft-breakdown', '--set', 'engine.prefillMaxBatch=0']);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toBe('kb: --set engine.prefillMaxBatch=0: engine.prefillMaxBatch must be integer 1..4096, got 0\n');
    const word = runKb(['lab', 'ttft-breakdown', '--set', 'workload.requests=many']);
    expect(word.code).toBe(1);
    expect(word.stderr).toMatch(/workload\.requests must be integer 1\.\.100000, got "many"/);
    const backend = runKb(['lab', 'ttft-breakdown', '--backend', 'tpu']);
    expect(backend.code).toBe(1);
    expect(backend.stderr).toBe('kb: --backend: unknown backend "tpu"; choose one of cpu, webgpu, auto, sim\n');
    const set = runKb(['lab', 'ttft-breakdown', '--set', 'backend=tpu']);
    expect(set.code).toBe(1);
    expect(set.stderr).toMatch(/--set backend=tpu: backend must be cpu \| webgpu \| auto \| sim/);
  });

  it('refuses settings that could never run together, before starting the engine', () => {
    const run = runKb(['lab', 'ttft-breakdown', '--set', 'workload.promptTokens=64', '--set', 'workload.sharedPrefix=64']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/workload\.sharedPrefix \(64\) must be shorter than the shortest prompt/);
  });

  it('refuses an unknown lab or a path, naming the labs there are', () => {
    const kb = writeKb({ 'lab/alpha.md': labText('Alpha') });
    const missing = runKb(['--kb', kb, 'lab', 'beta']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`kb: no lab "beta" (lab/beta.md does not exist); labs: ${withBundledLabs(['alpha']).join(', ')}\n`);
    const path = runKb(['--kb', kb, 'lab', '../notes/x']);
    expect(path.code).toBe(1);
    expect(path.stderr).toMatch(/is not a lab name/);
  });

  it('reports a broken lab file with its line and key', () => {
    const kb = writeKb({ 'lab/alpha.md': labText('Alpha').replace('requests: 4', 'requests: 4\n  colour: blue') });
    const run = runKb(['--kb', kb, 'lab', 'alpha']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^kb: lab\/alpha\.md:6: workload\.colour: unknown key; valid keys here: requests, promptTokens/);
  });
});

describe('kb lab show', () => {
  it('prints the exercise with what the lab runs and expects; --json gives it as data', () => {
    const run = runKb(['lab', 'show', 'ttft-breakdown']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^TTFT breakdown: queue wait vs prefill {2}\[lab\/ttft-breakdown\.md\]/);
    expect(run.stdout).toMatch(/256 requests, prompt 8 \/ output 16 tokens, burst/);
    expect(run.stdout).toMatch(/queue wait is at least 80% of TTFT p99 {2}\(queue_wait\.p99 \/ ttft\.p99 >= 0\.8\)/);
    expect(run.stdout).toContain('kb lab ttft-breakdown --set engine.prefillMaxBatch=256');
    const json = JSON.parse(runKb(['lab', 'show', 'ttft-breakdown', '--json']).stdout) as { settings: { engine: { prefillMaxBatch: number } }; exercise: string };
    expect(json.settings.engine.prefillMaxBatch).toBe(16);
    expect(json.exercise).toMatch(/^# TTFT breakdown/);
    expect(runKb(['lab', 'show', 'nope']).stderr).toMatch(/no lab "nope"/);
  });
});

describe('kb lab history', () => {
  it('says when a lab has no runs yet, and --json gives an empty list', () => {
    const kb = writeKb({ 'lab/alpha.md': labText('Alpha') });
    const text = runKb(['--kb', kb, 'lab', 'history', 'alpha']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Runs of lab alpha \(Alpha\).*\n\s+none yet/);
    const json = runKb(['--kb', kb, 'lab', 'history', 'alpha', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ lab: 'alpha', runs: [] });
    const unknown = runKb(['--kb', kb, 'lab', 'history', 'beta']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no lab "beta" and no stored runs/);
  });
});
