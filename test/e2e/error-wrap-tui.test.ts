// An error line on a terminal is wrapped short of its last column under its "kb: " (the
// terminal broke a 150-column line mid-word; found as a user); piped, it stays one line that
// a script can match.
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
});
