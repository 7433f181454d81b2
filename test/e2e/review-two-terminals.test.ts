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
});
