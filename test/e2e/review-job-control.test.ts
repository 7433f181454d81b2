// Ctrl-Z in kb review and kb quiz: the screens read keys in raw mode, where the terminal does
// not stop kb by itself. Started from a shell, kb goes back to it ("Stopped") and `fg` redraws
// the screen where it was, keys working; run with no shell to resume it, kb says so and stays.
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kbBin, runKb, tempDir } from '../helpers/kb-cli.ts';
import { reviewKb } from './review-fixture.ts';
import { quizKb } from './quiz-fixture.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

const QUESTION = 'What is TTFT and why does it matter for chat?';
const PROMPT = /^bash-\S*[$#]/m; // bash --norc: "bash-5.2$ " ("#" as root)

/** kb started from a shell with job control, as a user types it: `kb --kb <a review KB> <args>`. */
async function kbFromShell(args: string, root = reviewKb().root): Promise<TmuxKb> {
  const terminal = new TmuxKb();
  terminal.startShell();
  await terminal.waitFor(PROMPT);
  terminal.type(`${kbBin} --kb ${root} ${args}`);
  terminal.send('Enter');
  return terminal;
}

describe('Ctrl-Z in kb review', () => {
  it('goes back to the shell, and fg brings the screen back with its keys', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    tmux = await kbFromShell('review');
    await tmux.waitFor(QUESTION);
    tmux.send('C-z');
    const shell = await tmux.waitFor(/Stopped.*review/);
    expect(shell).not.toContain(QUESTION);
    tmux.type('fg');
    tmux.send('Enter');
    await tmux.waitFor(QUESTION);
    tmux.send('Space');
    await tmux.waitFor('3 Good');
    tmux.send('q');
    await tmux.waitFor((screen) => screen.includes('No cards reviewed') && PROMPT.test(screen));
  });

  it('goes back to the shell on a Ctrl-Z read with the rating before it, and stores that rating once', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    // Found as a user: 3 then Ctrl-Z at once (one read: "3\x1a") rated the card and stayed on
    // screen, the Ctrl-Z lost.
    tmux = await kbFromShell('review');
    await tmux.waitFor(QUESTION);
    tmux.send('Space');
    await tmux.waitFor('3 Good');
    tmux.type('3\x1a');
    await tmux.waitFor(/Stopped.*review/);
    tmux.type('fg');
    tmux.send('Enter');
    await tmux.waitFor(/done 1 /);
    tmux.send('q');
    await tmux.waitFor((screen) => /Reviewed 1 card\b/.test(screen) && PROMPT.test(screen));
  });

  it('redraws at the terminal\'s new size when it was resized while kb was stopped', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    tmux = await kbFromShell('review');
    await tmux.waitFor(QUESTION);
    tmux.send('C-z');
    await tmux.waitFor(/Stopped.*review/);
    tmux.tmux(['resize-window', '-t', tmux.session, '-x', '40', '-y', '20']);
    tmux.type('fg');
    tmux.send('Enter');
    // Drawn for 40 columns: the short top line, the question wrapped (found as a user: the
    // 80-column screen was drawn into 40, its top line scrolled away).
    const screen = await tmux.waitFor((shown) => /^done 0 {2}new \d+ {2}lrn/m.test(shown) && shown.includes('What is TTFT'));
    expect(screen.split('\n').every((line) => line.length <= 40)).toBe(true);
    tmux.send('q');
    await tmux.waitFor((shown) => shown.includes('No cards reviewed') && PROMPT.test(shown));
  });

  it('leaves the time kb was stopped out of the answer time it records', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    const root = reviewKb().root;
    tmux = await kbFromShell('review', root);
    await tmux.waitFor(QUESTION);
    tmux.send('C-z');
    await tmux.waitFor(/Stopped.*review/);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    tmux.type('fg');
    tmux.send('Enter');
    await tmux.waitFor(QUESTION);
    await tmux.revealAndRate('3');
    await tmux.waitFor('done 1');
    tmux.send('q');
    await tmux.waitFor(PROMPT);
    const csv = join(tempDir('kb-revlog-'), 'revlog.csv');
    expect(runKb(['--kb', root, 'export', '--revlog', csv]).code).toBe(0);
    const [, row] = readFileSync(csv, 'utf8').trim().split('\n');
    // Six seconds stopped; the answer itself took a moment.
    expect(Number(row.split(',')[4])).toBeLessThan(5_000);
  });

  it('says it keeps running when no shell could resume it', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    const kb = reviewKb();
    tmux = new TmuxKb();
    tmux.start(kb.root, 'review');
    await tmux.waitFor(QUESTION);
    tmux.send('C-z');
    const screen = await tmux.waitFor('not started from a shell with job control');
    expect(screen).toContain(QUESTION);
    tmux.send('Space');
    await tmux.waitFor('3 Good');
  });
});

describe('Ctrl-C in the editor kb review opened (e)', () => {
  // A terminal's Ctrl-C reaches the whole foreground job: kb as well as the editor it waits
  // for. kb review died of it at once (found as a user, with a script as $EDITOR): no summary,
  // the session gone, where the screen means to say "the editor ... was interrupted (Ctrl-C)"
  // and go on, as kb add --edit does.
  it('keeps the session: the status line says the editor was interrupted, and q ends as usual', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    const root = reviewKb().root;
    const dir = tempDir('kb-editor-');
    const started = join(dir, 'started');
    const editor = join(dir, 'slow-editor');
    writeFileSync(editor, `#!/bin/sh\ntouch '${started}'\nsleep 60\n`);
    chmodSync(editor, 0o755);
    tmux = new TmuxKb();
    tmux.startShell();
    await tmux.waitFor(PROMPT);
    tmux.type(`EDITOR=${editor} ${kbBin} --kb ${root} review; echo "exit=$?"`);
    tmux.send('Enter');
    await tmux.waitFor(QUESTION);
    tmux.send('e');
    const deadline = Date.now() + 30_000;
    while (!existsSync(started) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    tmux.send('C-c');
    const screen = await tmux.waitFor('was interrupted (Ctrl-C)');
    expect(screen).toContain(QUESTION);
    tmux.send('q');
    const end = await tmux.waitFor('exit=0');
    // The terminal echoed the Ctrl-C as `^C` on the normal screen, where the exit line goes:
    // it was printed on after it (`^CNo cards reviewed; ...`); it starts a line of its own.
    expect(end).toMatch(/^No cards reviewed/m);
  });
});

describe('Ctrl-Z in kb quiz', () => {
  it('untimed, fg brings it back too (it ended on fg: nothing kept kb\'s event loop alive while stopped)', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    tmux = await kbFromShell('quiz -n 2 --seed 3');
    await tmux.waitFor('question 1/2');
    tmux.send('C-z');
    await tmux.waitFor(/Stopped.*quiz/);
    tmux.type('fg');
    tmux.send('Enter');
    const back = await tmux.waitFor((screen) => screen.includes('question 1/2') && !/Stopped/.test(screen.split('\n')[0] ?? ''));
    expect(back).not.toMatch(/^Quiz: /m);
    tmux.send('Escape');
    await tmux.waitFor('Quiz stopped');
    tmux.send('q');
    await tmux.waitFor((screen) => /^Quiz: /m.test(screen) && PROMPT.test(screen));
  });

  it('goes back to the shell on a Ctrl-Z read with the keys typed before it, which stay typed', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    tmux = await kbFromShell('quiz -n 1 --calc --seed 1', quizKb());
    await tmux.waitFor('Answer (');
    tmux.type('12\x1a');
    await tmux.waitFor(/Stopped.*quiz/);
    tmux.type('fg');
    tmux.send('Enter');
    await tmux.waitFor(/Answer \(\w+\): 12 *$/m);
    tmux.send('Escape');
    await tmux.waitFor((now) => /Answer \(\w+\): *$/m.test(now));
    tmux.send('Escape');
    await tmux.waitFor('Quiz stopped');
    tmux.send('q');
    await tmux.waitFor((screen) => /^Quiz: /m.test(screen) && PROMPT.test(screen));
  });

  it('stops the countdown of a timed question while kb is stopped', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    tmux = await kbFromShell('quiz -n 1 --time 3s');
    await tmux.waitFor(/\d+s left/);
    tmux.send('C-z');
    await tmux.waitFor(/Stopped.*quiz/);
    // Away longer than the whole limit: the question is still open when kb comes back.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    tmux.type('fg');
    tmux.send('Enter');
    await tmux.waitFor(/\d+s left/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tmux.screen()).not.toContain("Time's up");
  });
});
