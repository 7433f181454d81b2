// The real `kb quiz` in a terminal: a 3-question quiz (two calc cards, one text card), a
// unit that does not fit, a right answer in another unit, a wrong one, a self-graded card;
// then the end screen and the stored quiz_results rows.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runKb } from '../helpers/kb-cli.ts';
import { openDb, quizKb, quizRows } from './quiz-fixture.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

const TPOT = "A request's TTFT is 0.5 s and its 100 tokens end at 2.5 s. What is its TPOT?";
const LITTLE = "Little's law: 40 requests/s arrive and each stays 2.5 s. How many are in the system?";
const TEXT = 'What does TTFT measure?';

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

describe('kb quiz in a terminal', () => {
  it('asks three questions, checks typed numbers with units, scores, and stores every answer', async () => {
    const root = quizKb();
    tmux = new TmuxKb();
    tmux.start(root, 'quiz', ['-n', '3', '--seed', '11']);
    const seen: string[] = [];
    for (let question = 1; question <= 3; question++) {
      const screen = await tmux.waitFor(new RegExp(`question ${question}/3`));
      // A self-graded card's verdict is not carried onto the next question.
      expect(screen).not.toMatch(/✓ right|✗ wrong/);
      if (screen.includes(TPOT)) {
        seen.push('tpot');
        // GB cannot be a time: a message, not a wrong answer.
        tmux.type('20 GB');
        tmux.send('Enter');
        await tmux.waitFor('"GB" does not convert to ms');
        for (let i = 0; i < 5; i++) tmux.send('BSpace');
        tmux.type('0.02 s');
        tmux.send('Enter');
        const result = await tmux.waitFor('✓ Right');
        expect(result).toContain('0.02 s = 20 ms');
        expect(result).toContain('TPOT = (2.5 - 0.5) / 100 s = 20 ms');
        tmux.send('Enter');
      } else if (screen.includes(LITTLE)) {
        seen.push('little');
        expect(screen).toContain('Answer (requests):');
        tmux.type('99');
        tmux.send('Enter');
        const result = await tmux.waitFor('✗ Wrong');
        expect(result).toContain('the answer is 100 requests');
        expect(result).toContain('L = lambda x W = 40 x 2.5 = 100 requests');
        tmux.send('Enter');
      } else {
        expect(screen).toContain(TEXT);
        expect(screen).not.toContain('first output token');
        seen.push('text');
        tmux.send('Space');
        await tmux.waitFor('first output token');
        tmux.send('y');
      }
    }
    expect([...seen].sort()).toEqual(['little', 'text', 'tpot']);
    const end = await tmux.waitFor('Quiz done.');
    expect(end).toContain('Score: 2/3 (67%)');
    expect(end).toContain('Weakest tags: metrics 2/3');
    tmux.send('q');
    await tmux.waitForExit();

    const rows = quizRows(root);
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((row) => row.session_id)).size).toBe(1);
    const byFront = (start: string) => rows.find((row) => row.front.startsWith(start));
    const tpot = byFront("A request's TTFT");
    expect(tpot).toMatchObject({ answered: '0.02 s', correct: 1 });
    expect(tpot?.expected).toBeCloseTo(20, 9);
    expect(JSON.parse(tpot?.vars ?? 'null')).toEqual({ ttft: 0.5, n: 100, total: 2.5 });
    expect(byFront("Little's law")).toMatchObject({ answered: '99', correct: 0, expected: 100 });
    expect(byFront('What does TTFT')).toMatchObject({ answered: null, correct: 1, expected: null, vars: null });
    expect(rows.map((row) => row.front.startsWith("A request's") ? 'tpot' : row.front.startsWith('Little') ? 'little' : 'text')).toEqual(seen);

    // Without --schedule the quiz leaves the review schedule alone.
    const db = openDb(root);
    try {
      expect(db.prepare('SELECT count(*) AS n FROM review_log').get()).toEqual({ n: 0 });
      expect(db.prepare('SELECT sum(reps) AS n FROM fsrs').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  }, TMUX_TEST_TIMEOUT_MS);

  it('refuses to start without a terminal unless --json is given', () => {
    const root = quizKb();
    const run = runKb(['--kb', root, 'quiz']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('kb quiz --json');
  });
  it('goes from a self-graded card to the next question without carrying its verdict over', async () => {
    const root = quizKb();
    tmux = new TmuxKb();
    // Seed 2 asks the text card first.
    tmux.start(root, 'quiz', ['-n', '3', '--seed', '2']);
    await tmux.waitFor(TEXT);
    tmux.send('Space');
    await tmux.waitFor('first output token');
    tmux.send('n');
    const next = await tmux.waitFor('question 2/3');
    expect(next).toContain('right 0/1');
    expect(next).not.toMatch(/✓ right|✗ wrong/);
    tmux.send('Escape');
    await tmux.waitFor('Quiz stopped');
    tmux.send('q');
    await tmux.waitForExit();
  }, TMUX_TEST_TIMEOUT_MS);

  it('wraps a message wider than a narrow terminal and keeps the key hints on screen', async () => {
    const root = quizKb();
    tmux = new TmuxKb();
    tmux.startWithStatus(root, ['quiz', '-n', '1', '--calc', '--seed', '1'], { columns: 30, rows: 14 });
    await tmux.waitFor('Answer (');
    tmux.type('20 GB');
    tmux.send('Enter');
    // Cut at the edge, the message lost what to do ("answer in ..."); found as a user.
    const screen = await tmux.waitFor('does not convert');
    const rows = screen.split('\n');
    expect(rows[0]).toMatch(/^question 1\/1/);
    // The source line gives up its tags before its path, whose line number stays ("metrics.md:4…" read as line 4).
    expect(rows[1]!.trimEnd()).toBe('metrics · cards/metrics.md:18');
    expect(rows.join(' ').replace(/\s+/g, ' ')).toMatch(/"GB" does not convert to \w+: answer in \w+/);
    expect(rows.slice(0, 14).some((row) => row.startsWith('type a number'))).toBe(true);
    // Esc clears the typed answer, then ends the quiz (as a calc card in kb review).
    tmux.send('Escape');
    await tmux.waitFor((now) => /Answer \(\w+\): *$/m.test(now));
    tmux.send('Escape');
    await tmux.waitFor('Quiz stopped');
    tmux.send('q');
    await tmux.waitFor('exit=');
  }, TMUX_TEST_TIMEOUT_MS);

  it('says before the first question that fewer cards matched than -n asked for', async () => {
    const root = quizKb();
    tmux = new TmuxKb();
    tmux.startWithStatus(root, ['quiz', '-n', '3', '--calc', '--seed', '1']);
    // Two calc cards: a quiz of 2 after -n 3 said nothing of why (found as a user).
    const screen = await tmux.waitFor('question 1/2');
    expect(screen).toContain('only 2 cards match --calc: 2 questions, not 3');
    tmux.send('Escape');
    await tmux.waitFor('Quiz stopped');
    tmux.send('q');
    await tmux.waitFor('exit=');
  }, TMUX_TEST_TIMEOUT_MS);

  it('a database locked past the busy timeout while answering: the screen closes and one line is left', async () => {
    const root = quizKb();
    tmux = new TmuxKb();
    tmux.startWithStatus(root, ['quiz', '-n', '3', '--seed', '2']);
    await tmux.waitFor(TEXT);
    tmux.send('Space');
    await tmux.waitFor('first output token');
    const holder = new Database(join(root, '.kb/kb.db'));
    holder.pragma('busy_timeout = 30000');
    holder.exec('BEGIN EXCLUSIVE');
    try {
      tmux.send('n');
      const screen = await tmux.waitFor('exit=');
      expect(screen).toContain('another process kept it locked past the 5 s kb waits');
      expect(screen).toContain('exit=1');
      expect(screen).not.toMatch(/^\s+at /m);
      expect(screen).not.toContain(TEXT);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  }, TMUX_TEST_TIMEOUT_MS);
});
