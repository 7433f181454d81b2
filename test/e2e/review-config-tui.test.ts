// kb.json made invalid while kb review is open: the session reads it again with today's queue
// (before it says done, and each second on the Done screen) and kept the settings it had in
// silence, while the next command refused the file (found by a probe). The status line now
// says so, in one line that fits 80 columns, and a kb.json mended takes effect as before.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

const CARDS = ['Alpha', 'Bravo'].map((name) => `## Question ${name}?\n\nAnswer ${name}.\n`).join('\n');

describe('kb.json made invalid during kb review', () => {
  it('says so on the status line and keeps the settings it had', async () => {
    const root = writeKb({ 'cards/deck.md': CARDS, 'kb.json': `${JSON.stringify({ newPerDay: 1 })}\n` });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    tmux = new TmuxKb();
    tmux.start(root, 'review', [], { columns: 80, rows: 24 });
    await tmux.waitFor('Question Alpha?');
    // Broken before the queue runs out: read again before the Done screen.
    writeFileSync(join(root, 'kb.json'), `${JSON.stringify({ newPerDay: 'lots' })}\n`);
    await tmux.revealAndRate('4');
    let screen = await tmux.waitFor('Done for today.');
    const line = 'kb.json now invalid (newPerDay); this session keeps its settings';
    expect(screen.split('\n')[1].trim()).toBe(line);
    // Broken again while the Done screen waits: said within a second or two.
    tmux.send('?');
    tmux.send('Escape');
    await tmux.waitFor((shown) => !shown.includes(line));
    writeFileSync(join(root, 'kb.json'), '{ "newPerDay": 2,\n');
    screen = await tmux.waitFor('kb.json now invalid (not valid JSON); this session keeps its settings');
    expect(screen).toContain('Done for today.');
    // A key longer than the line has room for: the short form, still one line of 80 columns.
    writeFileSync(join(root, 'kb.json'), `${JSON.stringify({ newPerDay: 2, [`x${'y'.repeat(60)}`]: 1 })}\n`);
    screen = await tmux.waitFor('kb.json now invalid; this session keeps its settings (kb due says why)');
    expect(screen.split('\n').every((row) => row.length <= 80)).toBe(true);
    // Mended: its new limit counts, as before.
    writeFileSync(join(root, 'kb.json'), `${JSON.stringify({ newPerDay: 2 })}\n`);
    await tmux.waitFor('Question Bravo?');
    tmux.send('q');
    await tmux.waitForExit();
  }, TMUX_TEST_TIMEOUT_MS);
});
