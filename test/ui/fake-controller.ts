// A review controller over a fixed list of cards, recording what the screen asked of it.
import type { ActionResult, ReviewController, ScreenCard, ScreenNext } from '../../src/app/review/screen-contract.ts';
import { FakeLabs } from './fake-labs.ts';

export function screenCard(id: string, overrides: Partial<ScreenCard> = {}): ScreenCard {
  return {
    id,
    kind: 'note',
    front: `Question ${id}?`,
    back: `Answer **${id}**.`,
    full: `# Question ${id}?\n\nThe whole note of ${id}.`,
    path: `notes/${id}.md`,
    line: 1,
    deck: 'metrics',
    lab: null,
    stateName: 'new',
    ...overrides,
  };
}

export class FakeController implements ReviewController {
  readonly calls: string[] = [];
  readonly labs = new FakeLabs();
  protected queue: ScreenCard[];
  private readonly done: ScreenCard[] = [];

  constructor(cards: ScreenCard[]) {
    this.queue = [...cards];
  }

  private notice: string | undefined;

  next(): ScreenNext {
    const next: ScreenNext = this.queue[0] ? { kind: 'card', card: this.queue[0] } : { kind: 'done' };
    const notice = this.notice;
    this.notice = undefined;
    return notice ? { ...next, notice } : next;
  }
  /** A new study day: its cards join the queue, and the next card comes with `notice`. */
  newDay(cards: ScreenCard[], notice: string): void {
    this.queue.push(...cards);
    this.notice = notice;
  }
  counts() {
    return { new: this.queue.length, learning: 0, review: 0, done: this.done.length };
  }
  options() {
    return [
      { grade: 1 as const, name: 'again', label: '1m' },
      { grade: 2 as const, name: 'hard', label: '6m' },
      { grade: 3 as const, name: 'good', label: '10m' },
      { grade: 4 as const, name: 'easy', label: '8d' },
    ];
  }
  rate(cardId: string, grade: number, _now: number, durationMs: number): ActionResult {
    this.calls.push(`rate ${cardId} ${grade} ${durationMs}`);
    this.done.push(this.queue.shift() as ScreenCard);
    return { message: null };
  }
  undo(): ActionResult {
    this.calls.push('undo');
    const card = this.done.pop();
    if (card) this.queue.unshift(card);
    return { message: card ? 'undid' : 'nothing to undo in this session' };
  }
  bury(cardId: string): ActionResult {
    this.calls.push(`bury ${cardId}`);
    this.queue.shift();
    return { message: 'buried until tomorrow' };
  }
  suspend(cardId: string): ActionResult {
    this.calls.push(`suspend ${cardId}`);
    this.queue.shift();
    return { message: 'suspended' };
  }
  editCommand(cardId: string) {
    return { command: 'editor', args: [`+1`, `notes/${cardId}.md`] };
  }
  async reload(cardId: string): Promise<ActionResult> {
    this.calls.push(`reload ${cardId}`);
    return { message: 'reloaded' };
  }
  summary() {
    return { cards: this.done.length, again: 0, elapsedMs: 65_000, laterToday: 0, stillDue: { learning: 0, review: 0, new: 0 }, tomorrow: 7 };
  }
}
