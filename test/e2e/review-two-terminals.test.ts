// Two terminals running `kb review` on one knowledge base show the same first card. The
// first to answer rates it; the other, answering the same stale screen, used to rate it a
// second time a moment later (a new card then graduated with no spacing). It is refused now,
// with a message, and that terminal moves on to the next card.
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, reviewKb } from './review-fixture.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

const terminals: TmuxKb[] = [];
afterEach(() => terminals.splice(0).forEach((terminal) => terminal.stop()));

describe('kb review in two terminals at once', () => {
  it('rates a card once when both terminals answer it', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    const kb = reviewKb();
    const [first, second] = [new TmuxKb(), new TmuxKb()];
    terminals.push(first, second);
    for (const terminal of [first, second]) terminal.start(kb.root, 'review');
    for (const terminal of [first, second]) await terminal.waitFor('What is TTFT and why does it matter for chat?');

    await first.revealAndRate('3');
    await first.waitFor('done 1');
    await second.revealAndRate('3');
    const screen = await second.waitFor('changed in another kb session since shown');
    expect(screen).toMatch(/done 0/);
    // The other note is shown next, not the one rated in the first terminal.
    expect(screen).not.toContain('What is TTFT and why does it matter for chat?');

    const db = openDb(kb.root);
    expect(db.prepare('SELECT count(*) AS n FROM review_log').get()).toEqual({ n: 1 });
    db.close();
  });

  it("counts in its header a card the other terminal rated, and its undo, at its next redraw, with no key pressed (the header counted it until it reached it)", { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    const kb = reviewKb();
    const [first, second] = [new TmuxKb(), new TmuxKb()];
    terminals.push(first, second);
    for (const terminal of [first, second]) terminal.start(kb.root, 'review');
    for (const terminal of [first, second]) await terminal.waitFor('What is TTFT and why does it matter for chat?');
    await first.waitFor(/done 0 {2}new 2 {2}learning 0/);

    // The second terminal rates the card both show, then the one the first has queued next.
    await second.revealAndRate('3');
    await second.waitFor('What is TPOT?');
    await second.revealAndRate('3');
    await second.waitFor(/done 2 {2}new 0 {2}learning 2/);
    // The first terminal's header drops the queued card from new (it is in learning now) by
    // its next redraw; it kept counting it as new until it reached it. The card it shows is
    // left as shown until a key there (a rating of it is refused).
    let screen = await first.waitFor(/done 0 {2}new 1 {2}learning 1/);
    expect(screen).toContain('What is TTFT and why does it matter for chat?');

    // u there takes that answer back: the card is counted as new here again.
    second.send('u');
    await second.waitFor(/done 1 {2}new 1 {2}learning 1/);
    screen = await first.waitFor(/done 0 {2}new 2 {2}learning 0/);
    expect(screen).toContain('What is TTFT and why does it matter for chat?');
  });
});
