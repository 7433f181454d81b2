// `l` in the real `kb review` and `kb quiz` (tmux): the card's lab runs in place, its
// verdict appears, and the card comes back; the card's back then shows the stored result.
// The test knowledge base has its own lab/ttft-breakdown.md: the bundled lab with the sim
// backend (a cost model on a virtual clock) instead of the cpu, so a run takes a second or
// two rather than half a minute, and the phenomenon (queue wait dominates TTFT) still holds.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, runKb, writeKb } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

const CARDS = `---
tags: [metrics]
---

## Under a burst with a cap on prefill admissions per step, which part of TTFT dominates?
lab: ttft-breakdown
Queue wait: the request waits for its admission wave.
`;

function labKb(): string {
  const bundled = readFileSync(join(repoRoot, 'lab/ttft-breakdown.md'), 'utf8');
  const sim = bundled.replace(/^backend: cpu$/m, 'backend: sim');
  if (sim === bundled) throw new Error('lab/ttft-breakdown.md no longer says "backend: cpu"; update this test');
  const root = writeKb({ 'cards/metrics.md': CARDS, 'lab/ttft-breakdown.md': sim });
  const scan = runKb(['--kb', root, 'scan']);
  if (scan.code !== 0) throw new Error(`kb scan failed: ${scan.stderr}`);
  return root;
}

/**
 * A lab of the learner's own with no `expect:`: a run of it has figures but no expectation to
 * measure them (its card's back read "mine · reproduced · <1m ago", and its panel no figure at all).
 */
function ownLabKb(): string {
  const bundled = readFileSync(join(repoRoot, 'lab/ttft-breakdown.md'), 'utf8').replace(/^backend: cpu$/m, 'backend: sim');
  const own = bundled.replace(/^expect:\n(?: .*\n)+/m, '');
  if (own === bundled) throw new Error('lab/ttft-breakdown.md no longer has an expect: block; update this test');
  const card = CARDS.replace('lab: ttft-breakdown', 'lab: mine');
  const root = writeKb({ 'cards/metrics.md': card, 'lab/mine.md': own });
  const scan = runKb(['--kb', root, 'scan']);
  if (scan.code !== 0) throw new Error(`kb scan failed: ${scan.stderr}`);
  return root;
}

function storedRuns(root: string): Array<{ lab: string; status: string }> {
  const db = new Database(join(root, '.kb/kb.db'), { readonly: true });
  try {
    return db.prepare('SELECT lab, status FROM lab_runs ORDER BY id').all() as Array<{ lab: string; status: string }>;
  } finally {
    db.close();
  }
}

let review: TmuxKb | null = null;
let quiz: TmuxKb | null = null;
afterEach(() => {
  review?.stop();
  quiz?.stop();
  review = quiz = null;
});

describe('a card\'s lab from kb review and kb quiz', () => {
  it('kb review: l runs the lab, shows the verdict, and any key brings the revealed card back with the result on it', async () => {
    const root = labKb();
    review = new TmuxKb();
    review.start(root, 'review');
    await review.waitFor('which part of TTFT dominates?');
    expect(review.screen()).toContain('l run lab');
    review.send('Space');
    const revealed = await review.waitFor('Lab: ttft-breakdown · not run yet');
    expect(revealed.match(/l runs it/g), 'the l key is named once').toHaveLength(1);
    review.send('l');
    const report = await review.waitFor('Verdict:', 60_000);
    expect(report).toContain('Verdict: reproduced (2/2 expectations hold)');
    expect(report).toContain('✓ queue wait is at least 80% of TTFT p99');
    expect(report).toMatch(/queue_wait\.p99 \/ ttft\.p99 = 0\.\d+; expected >= 0\.8/);
    // The figures the ratios are made of, as kb lab history shows them.
    expect(report).toMatch(/queue_wait\.p99 \d+\.\d+ ms · ttft\.p99 \d+\.\d+ ms/);
    review.send('x');
    const back = await review.waitFor('Lab: ttft-breakdown · reproduced 2/2');
    expect(back).toContain('Queue wait: the request waits for its admission wave.');
    expect(back).toContain('1 Again');
    expect(storedRuns(root)).toEqual([{ lab: 'ttft-breakdown', status: 'ok' }]);
    review.send('q');
    await review.waitForExit();
  }, TMUX_TEST_TIMEOUT_MS);

  it('one stored run of a lab with no expectations: the card\'s back and the panel show its figures', async () => {
    const root = ownLabKb();
    const run = runKb(['--kb', root, 'lab', 'mine']);
    expect(run.code, run.stderr).toBe(0);
    expect(storedRuns(root)).toEqual([{ lab: 'mine', status: 'ok' }]);
    // kb lab list and history said "reproduced" of it: no verdict, the run's status.
    const list = runKb(['--kb', root, 'lab', 'list']);
    expect(list.stdout.replace(/\s+/g, ' ')).toContain('[last run #1 on sim: ok]');
    const history = runKb(['--kb', root, 'lab', 'history']);
    expect(history.stdout).toMatch(/#1 .* mine +ok +- +sim/);
    expect(JSON.parse(runKb(['--kb', root, 'lab', 'history', 'mine', '--json']).stdout).runs[0].verdict).toBe('no expectations');
    review = new TmuxKb();
    review.start(root, 'review');
    await review.waitFor('which part of TTFT dominates?');
    review.send('Space');
    const back = await review.waitFor('Lab: mine · ok · <1m ago');
    expect(back).toMatch(/Lab: mine · ok · <1m ago · ttft\.p99 = \d+\.\d+ ms/);
    expect(back).not.toContain('reproduced');
    review.send('l');
    const report = await review.waitFor('this lab states no expectations', 60_000);
    expect(report).toMatch(/ttft\.p99 \d+\.\d+ ms · throughput\.output_tps \d+(\.\d+)? tokens\/s/);
    review.send('x');
    await review.waitFor('Lab: mine · ok · <1m ago · ttft.p99');
    review.send('q');
    await review.waitForExit();
  }, TMUX_TEST_TIMEOUT_MS);

  it('kb quiz: l on the revealed answer runs the lab and returns to the answer', async () => {
    const root = labKb();
    quiz = new TmuxKb();
    quiz.start(root, 'quiz', ['-n', '1', '--seed', '1']);
    await quiz.waitFor('which part of TTFT dominates?');
    quiz.send('Space');
    await quiz.waitFor('Lab: ttft-breakdown · not run yet');
    quiz.send('l');
    await quiz.waitFor('Verdict: reproduced (2/2 expectations hold)', 60_000);
    quiz.send('Enter');
    await quiz.waitFor('Lab: ttft-breakdown · reproduced 2/2');
    expect(quiz.screen()).toContain('y I knew it');
    quiz.send('y');
    await quiz.waitFor('Quiz done.');
  }, TMUX_TEST_TIMEOUT_MS);
});
