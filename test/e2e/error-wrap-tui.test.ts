// An error line on a terminal is wrapped short of its last column under its "kb: " (the
// terminal broke a 150-column line mid-word; found as a user); piped, it stays one line that
// a script can match. Commander's usage errors too: a list of choices broke at column 0.
import { afterEach, describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

describe('an error line', () => {
  it('wraps under "kb: " on a 60-column terminal, and is one line when piped', async () => {
    const piped = runKb(['lab', 'nosuch']);
    expect(piped.code).toBe(1);
    expect(piped.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(piped.stderr.length).toBeGreaterThan(100);

    tmux = new TmuxKb();
    tmux.startWithStatus(writeKb({ 'kb.json': '{}\n' }), ['lab', 'nosuch'], { columns: 60, rows: 12 });
    const screen = await tmux.waitFor('exit=1');
    const lines = screen.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('exit='));
    expect(lines[0]).toMatch(/^kb: no lab "nosuch"/);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.trimEnd().length).toBeLessThan(60);
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {4}\S/);
  }, TMUX_TEST_TIMEOUT_MS);

  it('of commander\'s (a bad choice) wraps under "kb: " as kb\'s own do, and is one line when piped', async () => {
    const piped = runKb(['cards', '--state', 'foo']);
    expect(piped).toMatchObject({ code: 1, stderr: expect.stringMatching(/^kb: option '--state <state>' argument 'foo' is invalid\. Allowed choices are new, learning, .*leech\.\n\(kb cards --help for its options\)\n$/) });

    tmux = new TmuxKb();
    tmux.startWithStatus(writeKb({ 'kb.json': '{}\n' }), ['cards', '--state', 'foo'], { columns: 80, rows: 12 });
    const screen = await tmux.waitFor('exit=1');
    const lines = screen.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('exit='));
    expect(lines[0]).toMatch(/^kb: option '--state <state>' argument 'foo' is invalid/);
    expect(lines.at(-1)).toBe('(kb cards --help for its options)');
    const wrapped = lines.slice(1, -1);
    expect(wrapped.join(' ')).toMatch(/leech\.$/);
    for (const line of wrapped) expect(line).toMatch(/^ {4}\S/);
    for (const line of lines) expect(line.trimEnd().length).toBeLessThan(80);
  }, TMUX_TEST_TIMEOUT_MS);
});
