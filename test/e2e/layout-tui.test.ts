// What kb draws at 80x24 and at 200x50 (issue #13, items 7-9): the real `kb review` and `kb
// stats` in tmux, and `kb stats` through a pipe. No row kb draws wraps in the terminal (tmux
// joins wrapped rows with capture-pane -J, so the row counts tell), Chinese lines end full,
// a number stays with its unit, an answer keeps to 100 columns, Obsidian syntax is drawn.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb, type TerminalSize } from '../helpers/tmux.ts';
import { cardIdOf, reviewKb } from './review-fixture.ts';

const NOTE = `---
tags: [memory]
---
Decode is bound by memory bandwidth: see [[metrics/tpot|TPOT]].

## Answer

三步：1) 先确认瓶颈在显存带宽：decode 阶段每个 token 都要把全部权重读一遍，H100 的带宽约 3.35 TB/s，所以 7B 模型 fp16 一步至少要 4 ms。2) 再看 batch 能否摊薄权重读取：batch 越大，每个 token 分到的权重读取越少，直到算力成为瓶颈。3) 最后才考虑量化。

Each step reads every weight once, so at 2 TB/s a 14 GB model needs at least 7 ms per token, whatever the batch; batching shares that one read among all the sequences of the step.

> [!tip] Rule of thumb
> Time per step $\\approx \\frac{W}{B}$ with $W$ the weight bytes.

![[roofline.png]]
`;

const DRILL = `---
tags: [metrics]
---
## A step reads 14 GB at 700 GB/s. How long does it take?
\`\`\`kb-calc
vars:
  bytes: { choose: [14] }
answer: bytes / 700 * 1000
unit: ms
tolerance: 1%
explain: 14 GB / 700 GB/s = {answer} ms
\`\`\`
`;

/** A knowledge base with a reviewed card and one quiz answer, right: stats has rows at 100%. */
function statsKb(): string {
  const kb = reviewKb();
  writeFileSync(join(kb.root, 'cards/drill.md'), DRILL);
  expect(runKb(['--kb', kb.root, 'rate', cardIdOf(kb.ttftPath), 'good']).code).toBe(0);
  const quiz = runKb(['--kb', kb.root, 'quiz', '--json', '--calc', '-n', '1'], { input: '20\n' });
  expect(quiz.stdout).toContain('"correct":true');
  expect(runKb(['--kb', kb.root, 'stats']).stdout).toContain('100.0% of 1');
  return kb.root;
}

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

/** The rows on the screen, and whether any of them is the continuation of a wrapped one. */
function rows(driver: TmuxKb): { lines: string[]; wrapped: boolean } {
  const plain = driver.tmux(['capture-pane', '-p', '-S', '-', '-t', driver.session]).trimEnd().split('\n');
  const joined = driver.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', driver.session]).trimEnd().split('\n');
  return { lines: plain.map((line) => line.trimEnd()), wrapped: plain.length !== joined.length };
}

function start(root: string, command: string[], size: TerminalSize): TmuxKb {
  const driver = new TmuxKb();
  // The shell keeps the pane open after kb stats exits, so its output can be read.
  driver.startWithStatus(root, command, size);
  return driver;
}

describe('terminal layout', () => {
  for (const size of [{ columns: 80, rows: 24 }, { columns: 200, rows: 50 }]) {
    it(`kb review at ${size.columns}x${size.rows}: wrapped by UAX #14, within the measure, Obsidian syntax drawn, f keeps the question`, async () => {
      const root = writeKb({ 'notes/memory/decode-bound.md': NOTE });
      expect(runKb(['--kb', root, 'scan']).code).toBe(0);
      tmux = new TmuxKb();
      tmux.start(root, 'review', [], size);
      await tmux.waitFor('decode-bound');
      tmux.send('Space');
      const screen = await tmux.waitFor('三步');
      const { lines, wrapped } = rows(tmux);
      expect(wrapped, screen).toBe(false);
      const measure = Math.min(100, size.columns - 1);
      const chinese = lines.filter((line) => /[\u4e00-\u9fff]/.test(line));
      // Chinese lines end full (within a wide character or a kept figure), not at the last space.
      for (const line of chinese.slice(0, -1)) expect(stringWidth(line), line).toBeGreaterThanOrEqual(measure - 10);
      for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(size.columns);
      for (const line of [...chinese, ...lines.filter((l) => l.includes('Each step') || l.includes('batching'))]) {
        expect(stringWidth(line), line).toBeLessThanOrEqual(measure);
        expect(line, 'no inserted leading space').not.toMatch(/^ \S/);
      }
      expect(screen).not.toMatch(/三步：1\)\s*$/m);
      expect(screen).toMatch(/2 TB\/s/);
      expect(screen).toContain('Rule of thumb');
      expect(screen).toContain('W/B');
      expect(screen).toContain('[embed: roofline.png]');
      expect(screen).not.toMatch(/\[\[|\[!tip\]|\\frac/);
      // f: the whole note, which has no H1, under its question line (the file name).
      tmux.send('f');
      const full = await tmux.waitFor('see TPOT');
      expect(full).toContain('decode-bound');
      tmux.send('q');
      await tmux.waitForExit();
    }, TMUX_TEST_TIMEOUT_MS);

    it(`kb stats at ${size.columns}x${size.rows}: no row wraps, a full bar keeps its value`, async () => {
      tmux = start(statsKb(), ['stats'], size);
      await tmux.waitFor('exit=');
      const { lines, wrapped } = rows(tmux);
      expect(wrapped, lines.join('\n')).toBe(false);
      expect(lines.some((line) => /^\s*\d+\s*$/.test(line)), 'a count alone on a row').toBe(false);
    }, TMUX_TEST_TIMEOUT_MS);
  }

  it('kb stats through a pipe: 80 columns, no row wider', () => {
    const out = runKb(['--kb', statsKb(), 'stats']);
    expect(out.code).toBe(0);
    const lines = out.stdout.trimEnd().split('\n');
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
    expect(lines.some((line) => /^\s*\d+\s*$/.test(line))).toBe(false);
  });
});
