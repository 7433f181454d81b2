import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLab } from '../../src/lab/lab-file.ts';
import { listLabs, loadLab } from '../../src/lab/lab-files.ts';
import { defaultSettings } from '../../src/lab/lab-settings.ts';
import { repoRoot, writeKb } from '../helpers/kb-cli.ts';
import { problemsOf } from './lab-problems.ts';

const minimal = `---
title: A lab
summary: What it shows.
engine:
  prefillMaxBatch: 4
workload:
  requests: 12
  promptTokens: 4..9
expect:
  - metric: queue_wait.p99 / ttft.p99
    op: ">="
    value: 0.5
    say: mostly waiting
---
# Exercise

Run it.
`;


describe('lab file', () => {
  it('parses the run over the defaults, the checks and the body', () => {
    const lab = parseLab(minimal, 'x');
    expect(lab.title).toBe('A lab');
    expect(lab.settings.engine.prefillMaxBatch).toBe(4);
    expect(lab.settings.workload.requests).toBe(12);
    expect(lab.settings.workload.promptTokens).toEqual({ min: 4, max: 9 });
    expect(lab.settings.engine.maxNumSeqs).toBe(defaultSettings.engine.maxNumSeqs);
    expect(lab.fileSettings.map((s) => s.key)).toEqual(['engine.prefillMaxBatch', 'workload.requests', 'workload.promptTokens']);
    expect(lab.expect).toHaveLength(1);
    expect(lab.expect[0].numerator.metric).toBe('queue_wait.p99');
    expect(lab.expect[0].denominator?.metric).toBe('ttft.p99');
    expect(lab.body).toBe('# Exercise\n\nRun it.');
    expect(lab.bodyLine).toBe(15);
    expect(lab.sweep).toBeNull();
  });

  it('names the file, the line and the key of an unknown key, with the valid ones', () => {
    const problems = problemsOf(minimal.replace('  prefillMaxBatch: 4', '  prefilMaxBatch: 4'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^lab\/x\.md:5: engine\.prefilMaxBatch: unknown key; valid keys here: .*prefillMaxBatch/);
    expect(problemsOf(minimal.replace('title: A lab', 'title: A lab\ncolour: red'))[0]).toMatch(/^lab\/x\.md:3: colour: unknown key/);
  });

  it('refuses out-of-range values with the key, line and range', () => {
    const problems = problemsOf(minimal.replace('requests: 12', 'requests: 0').replace('prefillMaxBatch: 4', 'prefillMaxBatch: 99999'));
    expect(problems).toEqual([
      expect.stringMatching(/^lab\/x\.md:5: engine\.prefillMaxBatch: must be integer 1\.\.4096, got 99999$/),
      expect.stringMatching(/^lab\/x\.md:7: workload\.requests: must be integer 1\.\.100000, got 0$/),
    ]);
  });

  it('checks the expect entries: metric names, operators, required fields', () => {
    expect(problemsOf(minimal.replace('queue_wait.p99 / ttft.p99', 'queue_time.p99 / ttft.p99'))[0]).toMatch(
      /^lab\/x\.md:10: expect\[0\]\.metric: unknown metric "queue_time\.p99"; known metrics: .*queue_wait\.p99/,
    );
    expect(problemsOf(minimal.replace('op: ">="', 'op: "=>"'))[0]).toMatch(/lab\/x\.md:11: expect\.0\.op: must be one of ">=", ">", "<=", "<"/);
    expect(problemsOf(minimal.replace('    say: mostly waiting\n', ''))[0]).toMatch(/expect\.0\.say: is required/);
    expect(problemsOf(minimal.replace('ttft.p99\n', 'ttft.p99@16\n'))[0]).toMatch(/no sweep/);
  });

  it('refuses a missing title, YAML errors, missing or executable frontmatter', () => {
    expect(problemsOf(minimal.replace('title: A lab\n', ''))[0]).toMatch(/^lab\/x\.md(:\d+)?: title: is required/);
    expect(problemsOf(minimal.replace('requests: 12', 'requests: [12'))[0]).toMatch(/^lab\/x\.md:\d+: YAML:/);
    expect(problemsOf('# no frontmatter\n')[0]).toBe('lab/x.md:1: no frontmatter (the file must start with ---)');
    expect(problemsOf('---js\n{ title: "x" }\n---\n')[0]).toMatch(/"---js" frontmatter is not allowed/);
    expect(problemsOf('---\ntitle: x\n')[0]).toMatch(/not closed/);
  });

  it('validates a sweep: the key, each value in range, labels usable in checks', () => {
    const sweep = minimal.replace(
      'expect:\n  - metric: queue_wait.p99 / ttft.p99',
      'sweep:\n  key: engine.prefillMaxBatch\n  values: [4, 64]\nexpect:\n  - metric: ttft.p99@64 / ttft.p99@4',
    );
    const lab = parseLab(sweep, 'x');
    expect(lab.sweep).toEqual({ key: 'engine.prefillMaxBatch', values: [4, 64], labels: ['4', '64'], relativeTo: null });
    expect(lab.expect[0].numerator).toEqual({ metric: 'ttft.p99', at: '64' });
    expect(problemsOf(sweep.replace('[4, 64]', '[4, 0]'))[0]).toMatch(/^lab\/x\.md:\d+: sweep\.values\[1\]: engine\.prefillMaxBatch must be integer 1\.\.4096/);
    expect(problemsOf(sweep.replace('key: engine.prefillMaxBatch', 'key: engine.nope'))[0]).toMatch(/sweep\.key: unknown setting "engine\.nope"/);
    expect(problemsOf(sweep.replace('ttft.p99@64 /', 'ttft.p99@32 /'))[0]).toMatch(/no sweep point "32"; points: 4, 64/);
  });

  it('finds labs in a knowledge base, lists broken ones with their error, refuses odd names', () => {
    const root = writeKb({ 'lab/good.md': minimal, 'lab/broken.md': '---\ntitle: [\n---\n', 'lab/README.txt': 'not a lab' });
    const listing = listLabs([root]);
    expect(listing.map((l) => [l.name, l.error === null])).toEqual([
      ['broken', false],
      ['good', true],
    ]);
    expect(loadLab([root], 'good').file).toBe('lab/good.md');
    expect(() => loadLab([root], '../notes/x')).toThrow(/not a lab name/);
    expect(() => loadLab([root], 'missing')).toThrow(/no lab "missing".*labs: broken, good/);
  });

  it('refuses a lab file that is a symlink leading outside the lab folder', () => {
    const root = writeKb({ 'outside.md': minimal });
    symlinkSync(join(root, 'outside.md'), join(root, 'lab', 'evil.md'));
    expect(() => loadLab([root], 'evil')).toThrow(/lab\/evil\.md leads outside the lab folder; refused/);
    expect(listLabs([root])[0]).toMatchObject({ name: 'evil', lab: null, error: expect.stringMatching(/outside the lab folder/) });
  });

  it('the bundled ttft-breakdown lab is valid and states the seed-003 phenomenon', () => {
    const lab = parseLab(readFileSync(join(repoRoot, 'lab/ttft-breakdown.md'), 'utf8'), 'ttft-breakdown');
    expect(lab.settings.workload.requests).toBe(256);
    expect(lab.settings.workload.arrival).toBe('burst');
    expect(lab.settings.engine.prefillMaxBatch).toBe(16);
    expect(lab.settings.model).toBe('gpt2-tiny');
    expect(lab.expect.map((c) => c.text)).toContain('queue_wait.p99 / ttft.p99');
    expect(lab.body).toContain('--set engine.prefillMaxBatch=256');
  });
});
