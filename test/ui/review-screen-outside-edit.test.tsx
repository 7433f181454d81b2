// The review screen asks whether a card's file changed outside kb when the card comes up and
// when its answer is shown, and has it read again first (keys typed meanwhile wait): it showed
// the answer of the last scan, and a note deleted in another editor could be rated.
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActionResult, ScreenCard } from '../../src/app/review/screen-contract.ts';
import { ReviewScreen } from '../../src/ui/review/ReviewScreen.tsx';
import { FakeController, screenCard } from './fake-controller.ts';
import { press, shows, tick } from './ink-input.ts';

/** A controller whose cards' files can be changed (with a new card as the file now says) or deleted. */
class OutsideEdits extends FakeController {
  private readonly changed = new Map<string, ScreenCard | 'deleted'>();
  private gate: Promise<void> | null = null;

  edit(card: ScreenCard): void {
    this.changed.set(card.id, card);
  }
  delete(cardId: string): void {
    this.changed.set(cardId, 'deleted');
  }
  /** readAgain waits for this (a slow scan) when set. */
  slow(): () => void {
    let release = () => {};
    this.gate = new Promise<void>((resolve) => (release = resolve));
    return release;
  }

  fileChanged(cardId: string): boolean {
    this.calls.push(`fileChanged ${cardId}`);
    return this.changed.has(cardId);
  }
  async readAgain(cardId: string): Promise<ActionResult> {
    this.calls.push(`readAgain ${cardId}`);
    await this.gate;
    const now = this.changed.get(cardId);
    this.changed.delete(cardId);
    if (now === 'deleted') {
      this.queue = this.queue.filter((card) => card.id !== cardId);
      return { message: `skipped: notes/${cardId}.md was deleted outside kb` };
    }
    if (now) this.queue = this.queue.map((card) => (card.id === cardId ? now : card));
    return { message: null };
  }
}

afterEach(() => cleanup());

describe('ReviewScreen and files changed outside kb', () => {
  it('reads a card whose file changed since it came up again before showing its answer, and the keys typed meanwhile wait', async () => {
    const controller = new OutsideEdits([screenCard('a'), screenCard('b')]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await shows(lastFrame, 'Question a?');
    expect(controller.calls).toEqual(['fileChanged a']);
    controller.edit(screenCard('a', { back: 'The answer as the file now says.' }));
    const release = controller.slow();
    await press(stdin, ' ', '3');
    // Still reading: the answer is not shown, nor the card rated.
    expect(lastFrame()).not.toContain('Answer a.');
    expect(controller.calls.filter((call) => call.startsWith('rate'))).toEqual([]);
    release();
    await shows(lastFrame, 'Question b?');
    expect(controller.calls).toContain('readAgain a');
    expect(controller.calls).toContain('rate a 3 0');
  });

  it('shows the answer the file has now', async () => {
    const controller = new OutsideEdits([screenCard('a'), screenCard('b')]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await shows(lastFrame, 'Question a?');
    controller.edit(screenCard('a', { back: 'The answer as the file now says.' }));
    await press(stdin, ' ');
    const frame = await shows(lastFrame, 'The answer as the file now says.');
    expect(frame).not.toContain('Answer a.');
    expect(frame).toContain('1 Again');
  });

  it('skips a card whose file was deleted when it comes up, and says so', async () => {
    const controller = new OutsideEdits([screenCard('a'), screenCard('b'), screenCard('c')]);
    controller.delete('b');
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await shows(lastFrame, 'Question a?');
    await press(stdin, ' ', '3');
    const frame = await shows(lastFrame, 'Question c?');
    expect(frame).toContain('skipped: notes/b.md was deleted outside kb');
    await tick();
    expect(controller.calls.filter((call) => call.startsWith('rate'))).toEqual(['rate a 3 0']);
  });
});
