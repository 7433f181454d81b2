// Issue #13 item 1 in a real terminal: rate A, rate B, undo, undo puts A back on screen with
// the counts whole, and after A comes B (it was once skipped until a relaunch).
import { afterEach, describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

/** Local time `ms` from now, as kb.json's "HH:MM". */
function localTimeIn(ms: number): string {
  const at = new Date(Date.now() + ms);
  return `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
}

const CARDS = ['Alpha', 'Bravo', 'Charlie'].map((name) => `## Question ${name}?\n\nAnswer ${name}.\n`).join('\n');

describe('kb review undo in a terminal', () => {
  it('rate A, rate B, u, u: A is back with new 3, then B, then C', async () => {
    // The study day ends 12 hours from now: a learning step (10 minutes) comes back in this
    // session whatever the time of the test (at 03:55 it would land in tomorrow's day).
    const root = writeKb({ 'cards/deck.md': CARDS, 'kb.json': `${JSON.stringify({ dayStartsAt: localTimeIn(12 * 3_600_000) })}\n` });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    tmux = new TmuxKb();
    tmux.start(root, 'review');
    const counts = /new (\d+)\s+learning (\d+)\s+review (\d+)/;
    let screen = await tmux.waitFor('Question Alpha?');
    expect(screen).toMatch(/new 3\s+learning 0\s+review 0/);
    await tmux.revealAndRate('3');
    await tmux.waitFor('Question Bravo?');
    await tmux.revealAndRate('3');
    await tmux.waitFor('Question Charlie?');
    tmux.send('u');
    await tmux.waitFor((shown) => shown.includes('Question Bravo?') && shown.includes('undid Good'));
    tmux.send('u');
    screen = await tmux.waitFor((shown) => shown.includes('Question Alpha?') && counts.exec(shown)?.[1] === '3');
    expect(screen).toMatch(/new 3\s+learning 0\s+review 0/);
    await tmux.revealAndRate('3');
    screen = await tmux.waitFor('Question Bravo?');
    expect(screen).toMatch(/new 2\s+learning 1\s+review 0/);
    await tmux.revealAndRate('3');
    await tmux.waitFor('Question Charlie?');
    tmux.send('q');
    await tmux.waitForExit();
  }, TMUX_TEST_TIMEOUT_MS);

  it('suspend A, bury B, u, u: B then A come back, with new 3; kb cards shows neither suspended nor buried', async () => {
    // The study day ends 12 hours from now: a learning step (10 minutes) comes back in this
    // session whatever the time of the test (at 03:55 it would land in tomorrow's day).
    const root = writeKb({ 'cards/deck.md': CARDS, 'kb.json': `${JSON.stringify({ dayStartsAt: localTimeIn(12 * 3_600_000) })}\n` });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    tmux = new TmuxKb();
    tmux.start(root, 'review');
    await tmux.waitFor('Question Alpha?');
    tmux.send('s');
    let screen = await tmux.waitFor('Question Bravo?');
    expect(screen).toMatch(/new 2\s+learning 0\s+review 0/);
    tmux.send('b');
    await tmux.waitFor('Question Charlie?');
    tmux.send('u');
    await tmux.waitFor((shown) => shown.includes('Question Bravo?') && shown.includes('unburied'));
    tmux.send('u');
    screen = await tmux.waitFor((shown) => shown.includes('Question Alpha?') && shown.includes('unsuspended'));
    expect(screen).toMatch(/new 3\s+learning 0\s+review 0/);
    tmux.send('q');
    await tmux.waitForExit();
    const cards = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as Array<{ suspended: boolean; buried: boolean }>;
    expect(cards.map((card) => [card.suspended, card.buried])).toEqual([[false, false], [false, false], [false, false]]);
  }, TMUX_TEST_TIMEOUT_MS);
});
