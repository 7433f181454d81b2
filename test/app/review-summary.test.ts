// The end of a kb review run counts a card rated Good a minute ago (its next learning step in
// ten minutes) as later today, not as tomorrow's load (found as a user: "tomorrow 1 due").
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { openDatabase } from '../../src/store/db.ts';
import { ReviewRun } from '../../src/app/review/review-run.ts';
import { ReviewService } from '../../src/app/review/review-service.ts';
import { tempDir } from '../helpers/kb-cli.ts';
import { FakeLabs } from '../ui/fake-labs.ts';

// Local 06:00: far from the 04:00 day start.
const START = new Date(2026, 2, 10, 6).getTime();

/** A review run started at START on one deck of new cards. */
async function runOnDeck(deck: string) {
  const root = tempDir('kb-summary-');
  mkdirSync(join(root, 'cards'), { recursive: true });
  writeFileSync(join(root, 'cards/deck.md'), deck);
  const db = openDatabase(join(root, 'kb.db'));
  await scanKnowledgeBase({ root, db, writable: true, config: defaultConfig }, { now: START - 60_000 });
  const service = new ReviewService({ root, db, writable: true, config: defaultConfig });
  const run = new ReviewRun(service, root, {}, { rescan: async () => [], editor: 'vi', writable: true, startedAt: START, labs: new FakeLabs() });
  return { run, db };
}

describe('a review run summary', () => {
  it('puts a learning step still to come today under later today, and leaves it out of tomorrow', async () => {
    const { run, db } = await runOnDeck('## One?\n\nA.\n\n## Two?\n\nB.\n');
    const next = run.next(START);
    if (next.kind !== 'card') throw new Error('expected a card');
    run.rate(next.card.id, 3, START + 1_000, 1_000);
    // The rated card comes back in minutes: later today, not tomorrow (new cards are no one's load).
    expect(run.summary(START + 2_000)).toMatchObject({ cards: 1, laterToday: 1, tomorrow: 0 });
    // Its time is the time spent answering (1 s), not since the screen opened: a screen left
    // open overnight said "10 cards in 4h 20m" (found as a user).
    expect(run.summary(START + 8 * 3_600_000).elapsedMs).toBe(1_000);
    const second = run.next(START + 3_000);
    if (second.kind !== 'card') throw new Error('expected a second card');
    run.rate(second.card.id, 3, START + 10 * 60_000, 5 * 60_000);
    expect(run.summary(START + 10 * 60_000).elapsedMs).toBe(1_000 + 60_000);
    run.undo(START + 11 * 60_000);
    expect(run.summary(START + 11 * 60_000).elapsedMs).toBe(1_000);
    db.close();
  });

  it('says what a run quit early leaves due now, and does not count it again as tomorrow\'s', async () => {
    const { run, db } = await runOnDeck('## One?\n\nA.\n\n## Two?\n\nB.\n\n## Three?\n\nC.\n');
    const first = run.next(START);
    if (first.kind !== 'card') throw new Error('expected a card');
    // Again: its one-minute step is over five minutes later, so it is due now when the run ends.
    run.rate(first.card.id, 1, START + 1_000, 1_000);
    expect(run.summary(START + 5 * 60_000)).toMatchObject({ cards: 1, laterToday: 0, stillDue: { learning: 1, review: 0, new: 2 }, tomorrow: 0 });
    // Seconds after the rating, the step is still to come: later today, not due now.
    expect(run.summary(START + 2_000)).toMatchObject({ laterToday: 1, stillDue: { learning: 0, review: 0, new: 2 }, tomorrow: 0 });
    db.close();
  });
});
