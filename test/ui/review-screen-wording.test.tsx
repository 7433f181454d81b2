// Wording of the review screen: e is not offered on the read-only bundled knowledge base,
// and the scroll hint counts lines in good English ("1 more line").
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ReviewScreen } from '../../src/ui/review/ReviewScreen.tsx';
import { indicator } from '../../src/ui/review/Viewport.tsx';
import { NO_NOTE } from '../../src/ui/review/review-keys.ts';
import { FakeController, screenCard } from './fake-controller.ts';
import { press, tick } from './ink-input.ts';

afterEach(() => cleanup());

class ReadOnlyController extends FakeController {
  readonly editable = false;
}

describe('review screen wording', () => {
  it('offers e edit in a personal knowledge base, not in the read-only bundled one (bar and ? keys)', async () => {
    const personal = render(<ReviewScreen controller={new FakeController([screenCard('a')])} startedAt={0} now={() => 0} />);
    await tick();
    expect(personal.lastFrame()).toContain('e edit');
    await press(personal.stdin, '?');
    expect(personal.lastFrame()).toContain('edit in $EDITOR at the card');
    cleanup();

    const bundled = render(<ReviewScreen controller={new ReadOnlyController([screenCard('a')])} startedAt={0} now={() => 0} />);
    await tick();
    expect(bundled.lastFrame()).toContain('f note · b bury');
    expect(bundled.lastFrame()).not.toContain('e edit');
    await press(bundled.stdin, '?');
    expect(bundled.lastFrame()).toContain('bury: hide the card');
    expect(bundled.lastFrame()).not.toContain('edit in $EDITOR at the card');
  });

  it('offers f only on a note\'s card; on a deck card f says there is no note, and does nothing else (it was offered and silent)', async () => {
    const deck = render(<ReviewScreen controller={new FakeController([screenCard('a', { kind: 'card', path: 'cards/metrics.md' })])} startedAt={0} now={() => 0} />);
    await tick();
    expect(deck.lastFrame()).toContain('Space answer · e edit · b bury');
    expect(deck.lastFrame()).not.toContain('f note');
    await press(deck.stdin, 'f');
    expect(deck.lastFrame()).toContain(NO_NOTE);
    expect(deck.lastFrame()).not.toContain('Answer a');
    await press(deck.stdin, ' ', 'f');
    expect(deck.lastFrame()).toContain('Answer a');
    expect(deck.lastFrame()).toContain(NO_NOTE);
    cleanup();

    const note = render(<ReviewScreen controller={new FakeController([screenCard('a')])} startedAt={0} now={() => 0} />);
    await tick();
    expect(note.lastFrame()).toContain('Space answer · f note · e edit');
    await press(note.stdin, 'f');
    expect(note.lastFrame()).toContain('The whole note of a.');
  });

  it('says "Tomorrow: 1 card due" on the Done screen, and learning steps still to come today apart', async () => {
    class OneTomorrow extends FakeController {
      override summary() {
        return { cards: 0, again: 0, elapsedMs: 0, laterToday: 0, stillDue: { learning: 0, review: 0, new: 0 }, tomorrow: 1 };
      }
    }
    const { lastFrame } = render(<ReviewScreen controller={new OneTomorrow([])} startedAt={0} now={() => 0} />);
    await tick();
    expect(lastFrame()).toContain('Tomorrow: 1 card due');
    expect(lastFrame()).not.toContain('Later today');
    class TwoLater extends FakeController {
      override summary() {
        return { cards: 2, again: 0, elapsedMs: 0, laterToday: 2, stillDue: { learning: 0, review: 0, new: 0 }, tomorrow: 0 };
      }
    }
    const later = render(<ReviewScreen controller={new TwoLater([])} startedAt={0} now={() => 0} />);
    await tick();
    expect(later.lastFrame()).toContain('Later today: 2 learning cards');
  });

  it('says "1 more line", "2 more lines"', () => {
    expect(indicator(1, 0)).toBe('↓ 1 more line (j/k, arrows, PgUp/PgDn)');
    expect(indicator(2, 0)).toBe('↓ 2 more lines (j/k, arrows, PgUp/PgDn)');
    expect(indicator(0, 3)).toBe('↑ (k to scroll back)');
  });
});
