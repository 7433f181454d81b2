// Found as a user (a week of use compressed with faketime): a kb review left open past the
// study day's end (reviewing after midnight until 04:00, or a screen left open overnight) kept
// the day before's queue: no new cards (yesterday's limit was used up), none of the reviews
// that came due, yesterday's buried cards still away. As Anki does when its day rolls over,
// the run now takes the new day's queue, and keeps its answers and its undo stack.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { openDatabase } from '../../src/store/db.ts';
import { NEW_STUDY_DAY, ReviewRun } from '../../src/app/review/review-run.ts';
import { ReviewService } from '../../src/app/review/review-service.ts';
import { tempDir } from '../helpers/kb-cli.ts';
import { FakeLabs } from '../ui/fake-labs.ts';

// Local 03:30, half an hour before the default 04:00 day start; 04:10 is the next study day.
const NIGHT = new Date(2026, 2, 10, 3, 30).getTime();
const MORNING = new Date(2026, 2, 10, 4, 10).getTime();

/** Seven new cards, at most three new a day. */
async function fixture() {
  const root = tempDir('kb-new-day-');
  mkdirSync(join(root, 'cards'), { recursive: true });
  writeFileSync(join(root, 'cards/deck.md'), Array.from({ length: 7 }, (_, i) => `## Question ${i}?\n\nAnswer ${i}.\n`).join('\n'));
  const db = openDatabase(':memory:');
  const config = { ...defaultConfig, newPerDay: 3 };
  await scanKnowledgeBase({ root, db, writable: true, config }, { now: NIGHT - 86_400_000 });
  return new ReviewService({ root, db, writable: true, config });
}

function reviewRun(service: ReviewService, startedAt: number): ReviewRun {
  return new ReviewRun(service, '/nowhere', {}, { rescan: async () => [], editor: 'vi', writable: true, startedAt, labs: new FakeLabs() });
}

function queueOf(run: ReviewRun) {
  const { done: _done, ...counts } = run.counts();
  return { counts, lists: run.sessionLists() };
}

describe('a kb review run that crosses into a new study day', () => {
  it('takes the new day\'s queue, says so once, and keeps its answers, summary and undo', async () => {
    const service = await fixture();
    const run = reviewRun(service, NIGHT);
    // Last night: a new card buried, three answered Easy (out of the queue for days): the limit is used.
    const buried = run.next(NIGHT + 1_000);
    if (buried.kind !== 'card') throw new Error('expected a card');
    run.bury(buried.card.id, NIGHT + 1_000);
    for (const at of [NIGHT + 2_000, NIGHT + 3_000, NIGHT + 4_000]) {
      const next = run.next(at);
      if (next.kind !== 'card') throw new Error('expected a card');
      run.rate(next.card.id, 4, at, 1_000);
    }
    expect(run.next(NIGHT + 5_000).kind).toBe('done');
    expect(run.counts()).toEqual({ new: 0, learning: 0, review: 0, done: 3 });

    // Past 04:00 the run shows what a launch then would: three new cards, the buried one back among them.
    const morning = run.next(MORNING);
    expect(morning.notice).toBe(NEW_STUDY_DAY);
    expect(queueOf(run)).toEqual(queueOf(reviewRun(service, MORNING)));
    expect(run.counts()).toEqual({ new: 3, learning: 0, review: 0, done: 3 });
    expect(run.sessionLists().new).toContain(buried.card.id);
    // Said once: the next card comes without it.
    expect(run.next(MORNING + 1_000).notice).toBeUndefined();

    if (morning.kind !== 'card') throw new Error('expected a card');
    run.rate(morning.card.id, 3, MORNING + 2_000, 1_000);
    expect(run.summary(MORNING + 3_000).cards).toBe(4);
    // Undo still reaches back past the turn of the day: this morning's rating, then last night's.
    expect(run.undo(MORNING + 4_000).message).toBe('undid Good');
    expect(run.undo(MORNING + 5_000).message).toBe('undid Easy');
    expect(run.counts().done).toBe(2);
  });

  it('changes nothing within one study day', async () => {
    const service = await fixture();
    const run = reviewRun(service, NIGHT);
    const first = run.next(NIGHT);
    expect(first.notice).toBeUndefined();
    expect(run.next(NIGHT + 25 * 60_000).notice).toBeUndefined();
  });
});
