// Two kb review sessions on one knowledge base (two terminals). Each shows a card and keeps
// it on screen; when the other session rates that card first, rating it again from the stale
// screen used to apply a second answer a second later (a new card graduated with no spacing).
// Now the rating is refused with a message, and the session takes that card as it now is.
// A session reads each card afresh when it shows it, and today's queue afresh when it runs
// out of cards due now, so what the other session brought back (an undo) or answered is met
// before it says done.
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { openDatabase, type KbDatabase } from '../../src/store/db.ts';
import { ReviewRun } from '../../src/app/review/review-run.ts';
import { ReviewService } from '../../src/app/review/review-service.ts';
import { PAGE_SIZE } from '../../src/srs/session-queue.ts';
import type { Grade } from '../../src/model/fsrs-state.ts';
import { tempDir } from '../helpers/kb-cli.ts';
import { FakeLabs } from '../ui/fake-labs.ts';

// Local 06:00: far from the 04:00 day start, so a test stays in one review day.
const START = new Date(2026, 2, 10, 6).getTime();
const CHANGED = /^rated or changed in another kb session since shown: not rated here$/;

/** Six new cards (or `count`); two connections to one database file, as two kb processes have. */
async function twoSessions(count = 6): Promise<{ root: string; dbs: [KbDatabase, KbDatabase]; services: [ReviewService, ReviewService] }> {
  const root = tempDir('kb-two-');
  mkdirSync(join(root, 'cards'), { recursive: true });
  writeFileSync(join(root, 'cards/deck.md'), Array.from({ length: count }, (_, i) => `## Question ${i}?\n\nAnswer ${i}.\n`).join('\n'));
  const path = join(root, '.kb', 'kb.db');
  mkdirSync(join(root, '.kb'));
  const first = openDatabase(path);
  await scanKnowledgeBase({ root, db: first, writable: true, config: defaultConfig }, { now: START - 60_000 });
  const second = openDatabase(path);
  const service = (db: KbDatabase) => new ReviewService({ root, db, writable: true, config: defaultConfig });
  return { root, dbs: [first, second], services: [service(first), service(second)] };
}

function reviewRun(service: ReviewService, startedAt: number): ReviewRun {
  return new ReviewRun(service, '/nowhere', {}, { rescan: async () => [], editor: 'vi', writable: true, startedAt, labs: new FakeLabs() });
}

function shown(run: ReviewRun, now: number): string | null {
  const next = run.next(now);
  return next.kind === 'card' ? next.card.id : null;
}

function queueOf(run: ReviewRun) {
  const { done: _done, ...counts } = run.counts();
  return { counts, lists: run.sessionLists() };
}

const ratings = (db: KbDatabase) => (db.prepare('SELECT count(*) AS n FROM review_log').get() as { n: number }).n;

describe('two kb review sessions at once', () => {
  it('says what the other session did when it can tell: a card suspended there is not "rated there?" (found as a user)', async () => {
    const { services } = await twoSessions();
    const [a, b] = services.map((service) => reviewRun(service, START));
    const card = shown(a, START)!;
    expect(shown(b, START)).toBe(card);
    a.suspend(card, START + 1_000);
    expect(b.rate(card, 3, START + 2_000, 1_000).message).toBe('suspended in another kb session since shown: not rated here');
    const other = shown(a, START + 3_000)!;
    expect(shown(b, START + 3_000)).toBe(other);
    a.bury(other, START + 4_000);
    expect(b.rate(other, 3, START + 5_000, 1_000).message).toBe('buried in another kb session since shown: not rated here');
  });

  it('refuses to rate a card the other session rated since it was shown, and moves on', async () => {
    const { dbs, services } = await twoSessions();
    const [a, b] = services.map((service) => reviewRun(service, START));
    const card = shown(a, START);
    expect(shown(b, START)).toBe(card);
    expect(a.rate(card!, 3, START + 1_000, 1_000).message).toBeNull();
    expect(b.rate(card!, 3, START + 2_000, 1_000).message).toMatch(CHANGED);
    expect(ratings(dbs[0])).toBe(1);
    // B's queue is what a fresh launch shows now: the card in learning, one new card fewer.
    expect(queueOf(b)).toEqual(queueOf(reviewRun(services[1], START + 2_000)));
    expect(shown(b, START + 2_000)).not.toBe(card);
    // Shown afresh, the card can be rated from either session.
    const later = START + 11 * 60_000;
    expect(shown(b, later)).toBe(card);
    expect(b.rate(card!, 3, later, 1_000).message).toBeNull();
    expect(ratings(dbs[0])).toBe(2);
  });

  it('does not show a card the other session rated after this one queued it, and queues it as it now is', async () => {
    const { dbs, services } = await twoSessions();
    const [a, b] = services.map((service) => reviewRun(service, START));
    const first = shown(a, START)!;
    expect(shown(b, START)).toBe(first);
    // A rates the first card, then the second; B, still on the first, is refused, then shows
    // the third (the second is now in learning, due in a minute), not the second as new.
    a.rate(first, 3, START + 1_000, 1_000);
    const second = shown(a, START + 1_000)!;
    a.rate(second, 1, START + 2_000, 1_000);
    expect(b.rate(first, 3, START + 3_000, 1_000).message).toMatch(CHANGED);
    const third = shown(b, START + 3_000);
    expect(third).not.toBe(second);
    expect(third).not.toBe(first);
    expect(queueOf(b)).toEqual(queueOf(reviewRun(services[1], START + 3_000)));
    expect(ratings(dbs[0])).toBe(2);
  });

  it('meets a card the other session brought back by an undo, before saying done (found as a user)', async () => {
    const { services } = await twoSessions();
    const [a, b] = services.map((service) => reviewRun(service, START));
    const card = shown(a, START)!;
    expect(shown(b, START)).toBe(card);
    expect(b.rate(card, 3, START + 1_000, 1_000).message).toBeNull();
    expect(a.rate(card, 4, START + 2_000, 1_000).message).toMatch(CHANGED);
    expect(b.undo(START + 3_000).message).toMatch(/^undid [gG]ood$/);
    // A answers every other card: the one B took back is new and due again, so A shows it.
    let now = START + 4_000;
    const seen: string[] = [];
    for (let id = shown(a, now); id !== null && seen.length < 10; id = shown(a, now)) {
      seen.push(id);
      expect(a.rate(id, 4, (now += 1_000), 1_000).message).toBeNull();
    }
    expect(seen).toContain(card);
    expect(a.next(now).kind).toBe('done');
    expect(queueOf(a)).toEqual(queueOf(reviewRun(services[0], now)));
  });

  it('takes back a card the other session rated and then undid as soon as the undo lands, not after every other card (found as a user)', async () => {
    const { services } = await twoSessions();
    const [a, b] = services.map((service) => reviewRun(service, START));
    const card = shown(a, START)!;
    expect(shown(b, START)).toBe(card);
    expect(b.rate(card, 3, START + 1_000, 1_000).message).toBeNull();
    // A, on the stale screen, is refused and takes the card as B left it: learning, due later.
    expect(a.rate(card, 4, START + 2_000, 1_000).message).toMatch(CHANGED);
    const other = shown(a, START + 2_000)!;
    expect(other).not.toBe(card);
    expect(b.undo(START + 3_000).message).toMatch(/^undid [gG]ood$/);
    // A's next card: the one B took back, new again, with the counts a fresh launch has (it
    // was met only once A had answered every other card, counted as learning meanwhile).
    expect(a.rate(other, 3, START + 4_000, 1_000).message).toBeNull();
    expect(shown(a, START + 5_000)).toBe(card);
    expect(queueOf(a)).toEqual(queueOf(reviewRun(services[0], START + 5_000)));
    expect(a.rate(card, 3, START + 6_000, 1_000).message).toBeNull();
  });

  it('takes back a card that the other session rated after this one queued it, once undone there, and one suspended there once unsuspended', async () => {
    const { services } = await twoSessions();
    const [a, b] = services.map((service) => reviewRun(service, START));
    const first = shown(a, START)!;
    // B rates the first two cards; A, answering the first, is refused and meets the second as B left it.
    expect(shown(b, START)).toBe(first);
    b.rate(first, 3, START + 500, 500);
    const second = shown(b, START + 600)!;
    b.rate(second, 3, START + 700, 500);
    expect(a.rate(first, 3, START + 1_000, 1_000).message).toMatch(CHANGED);
    const third = shown(a, START + 1_100)!;
    expect([first, second]).not.toContain(third);
    // B undoes both: A's next card is the first new card again, its queue a fresh launch's.
    expect(b.undo(START + 1_200).message).toMatch(/^undid [gG]ood$/);
    expect(b.undo(START + 1_300).message).toMatch(/^undid [gG]ood$/);
    expect(shown(a, START + 1_400)).toBe(first);
    expect(queueOf(a)).toEqual(queueOf(reviewRun(services[0], START + 1_400)));
    // Suspended in B and unsuspended there (u): back in A too.
    b.suspend(first, START + 1_500);
    expect(a.rate(first, 3, START + 1_600, 1_000).message).toBe('suspended in another kb session since shown: not rated here');
    expect(shown(a, START + 1_700)).not.toBe(first);
    expect(b.undo(START + 1_800).message).toBe('unsuspended');
    expect(shown(a, START + 1_900)).toBe(first);
    expect(queueOf(a)).toEqual(queueOf(reviewRun(services[0], START + 1_900)));
  });

  it('does not show a card it had on screen before as it was then, once the other session answered it', async () => {
    const { services } = await twoSessions();
    const [a, b] = services.map((service) => reviewRun(service, START));
    // B rates its first card, shows the second (X), then undoes: the first is back on its
    // screen while X waits, read once already. A answers X meanwhile.
    const first = shown(b, START)!;
    b.rate(first, 3, START + 500, 500);
    const x = shown(b, START + 600)!;
    expect(b.undo(START + 700).message).toMatch(/^undid [gG]ood$/);
    expect(shown(b, START + 800)).toBe(first);
    expect(shown(a, START + 900)).toBe(first);
    a.bury(first, START + 950);
    expect(shown(a, START + 1_000)).toBe(x);
    a.rate(x, 3, START + 1_100, 1_000);
    // B, done with the first card, must not show X as the new card it was.
    b.rate(first, 3, START + 1_200, 1_000);
    expect(shown(b, START + 1_300)).not.toBe(x);
  });

  it("counts at the screen's next redraw a card the other session rated that this one has queued, and its undo there, with no card read here (the header counted it until this session reached it)", async () => {
    const { services } = await twoSessions();
    const [a, b] = services.map((service) => reviewRun(service, START));
    const onScreen = shown(a, START)!;
    expect(shown(b, START)).toBe(onScreen);
    expect(a.counts(START)).toEqual({ done: 0, new: 6, learning: 0, review: 0 });
    // B rates the card A shows: A leaves it as shown (a rating of it is refused, as before).
    b.rate(onScreen, 3, START + 1_000, 1_000);
    expect(a.counts(START + 1_100)).toEqual({ done: 0, new: 6, learning: 0, review: 0 });
    // B rates the card A has queued next: A's header counts it as B left it, learning.
    const queued = shown(b, START + 1_200)!;
    b.rate(queued, 3, START + 2_000, 1_000);
    // Without a redraw's now, counts are only read.
    expect(a.counts()).toEqual({ done: 0, new: 6, learning: 0, review: 0 });
    expect(a.counts(START + 2_100)).toEqual({ done: 0, new: 5, learning: 1, review: 0 });
    // B's u takes that rating back: A counts the card as new again, before reaching it.
    expect(b.undo(START + 3_000).message).toMatch(/^undid [gG]ood$/);
    expect(a.counts(START + 3_100)).toEqual({ done: 0, new: 6, learning: 0, review: 0 });
    // B suspends it, and takes that back: the same.
    expect(shown(b, START + 3_200)).toBe(queued);
    b.suspend(queued, START + 4_000);
    expect(a.counts(START + 4_100)).toEqual({ done: 0, new: 5, learning: 0, review: 0 });
    expect(b.undo(START + 5_000).message).toBe('unsuspended');
    expect(a.counts(START + 5_100)).toEqual({ done: 0, new: 6, learning: 0, review: 0 });
    // A's card on screen, rated by B, is refused; then A's queue is a fresh launch's, the
    // card it had queued next shown next.
    expect(a.rate(onScreen, 3, START + 6_000, 1_000).message).toMatch(CHANGED);
    expect(shown(a, START + 6_100)).toBe(queued);
    expect(queueOf(a)).toEqual(queueOf(reviewRun(services[0], START + 6_100)));
  });

  it("a rating of this session undone from the shell leaves the header at its next redraw, unless its card is the one on screen", async () => {
    const { services } = await twoSessions();
    const run = reviewRun(services[0], START);
    const first = shown(run, START)!;
    run.rate(first, 1, START + 1_000, 1_000);
    const second = shown(run, START + 1_100)!;
    expect(run.counts(START + 1_100)).toEqual({ done: 1, new: 5, learning: 1, review: 0 });
    expect(services[1].undo()).toMatchObject({ cardId: first });
    expect(run.counts(START + 1_200)).toEqual({ done: 0, new: 6, learning: 0, review: 0 });
    // The card taken back comes next, after the one on screen.
    run.rate(second, 4, START + 2_000, 1_000);
    expect(shown(run, START + 2_100)).toBe(first);
    // Rated Again, then met again in learning: on screen, its undo from the shell waits for a key.
    run.rate(first, 1, START + 3_000, 1_000);
    expect(shown(run, START + 3_000 + 10 * 60_000)).toBe(first);
    expect(services[1].undo()).toMatchObject({ cardId: first });
    expect(run.counts(START + 3_000 + 10 * 60_000)).toEqual({ done: 2, new: 4, learning: 1, review: 0 });
    expect(run.undo(START + 4_000 + 10 * 60_000).message).toBe('already undone in another kb (kb undo): the card is back as it was');
    expect(run.counts(START + 4_000 + 10 * 60_000)).toEqual({ done: 1, new: 5, learning: 0, review: 0 });
    expect(queueOf(run)).toEqual(queueOf(reviewRun(services[1], START + 4_000 + 10 * 60_000)));
  });

  it('an undo in this session of a rating already undone from the shell says so and takes the card back (found as a user: it sent the user to undo an older one)', async () => {
    const { services } = await twoSessions();
    const run = reviewRun(services[0], START);
    const card = shown(run, START)!;
    expect(run.rate(card, 3, START + 1_000, 1_000).message).toBeNull();
    expect(run.counts().done).toBe(1);
    // kb undo in another terminal takes it back.
    expect(services[1].undo()).toMatchObject({ cardId: card });
    expect(run.undo(START + 2_000).message).toBe('already undone in another kb (kb undo): the card is back as it was');
    expect(run.counts().done).toBe(0);
    expect(shown(run, START + 3_000)).toBe(card);
  });

  it('a rating of this session undone from the shell leaves its counts at its next card: done, new and learning as a fresh launch has them, and the card is shown again (found as a user: the header kept done 1, learning 1)', async () => {
    const { services } = await twoSessions();
    const run = reviewRun(services[0], START);
    const first = shown(run, START)!;
    expect(run.rate(first, 3, START + 1_000, 1_000).message).toBeNull();
    const second = shown(run, START + 1_100)!;
    expect(run.counts()).toEqual({ done: 1, new: 5, learning: 1, review: 0 });
    // kb undo in another terminal takes it back: the next card the session reads, it knows.
    expect(services[1].undo()).toMatchObject({ cardId: first });
    expect(shown(run, START + 2_000)).toBe(first);
    expect(run.counts()).toEqual({ done: 0, new: 6, learning: 0, review: 0 });
    expect(queueOf(run)).toEqual(queueOf(reviewRun(services[1], START + 2_000)));

    // Undone again while another card is on screen, which the user then answers: that answer
    // is the session's one, and the card taken back comes next.
    expect(run.rate(first, 3, START + 3_000, 1_000).message).toBeNull();
    expect(shown(run, START + 3_100)).toBe(second);
    expect(services[1].undo()).toMatchObject({ cardId: first });
    expect(run.rate(second, 3, START + 4_000, 1_000).message).toBeNull();
    expect(run.counts()).toEqual({ done: 1, new: 5, learning: 1, review: 0 });
    expect(shown(run, START + 4_100)).toBe(first);
    expect(queueOf(run)).toEqual(queueOf(reviewRun(services[1], START + 4_100)));
    expect(run.summary(START + 4_100)).toMatchObject({ cards: 1, elapsedMs: 1_000 });
    // u here now takes back this session's standing answer, the second card's.
    expect(run.undo(START + 5_000).message).toBe('undid Good');
    expect(run.counts().done).toBe(0);
  });

  it('an undo refused because a later rating from another kb stands is still there once that one is undone (found by a probe: the next u said nothing to undo)', async () => {
    const { services } = await twoSessions();
    const run = reviewRun(services[0], START);
    const card = shown(run, START)!;
    expect(run.rate(card, 3, START + 1_000, 1_000).message).toBeNull();
    // kb rate in another terminal, on another card.
    const other = services[1].queue({}, START + 1_500).new.find((entry) => entry.id !== card)!.id;
    services[1].rate(other, 3, START + 1_500);
    expect(run.undo(START + 2_000).message).toMatch(/^a later rating or action \(from another kb\) stands in the log; undo that one first/);
    expect(run.counts().done).toBe(1);
    // The user does as told: kb undo takes the other one back; u then undoes this session's rating.
    expect(services[1].undo()).toMatchObject({ cardId: other });
    expect(run.undo(START + 3_000).message).toBe('undid Good');
    expect(run.counts().done).toBe(0);
    expect(services[0].card(card)?.schedule.reps).toBe(0);
  });

  it('u on a bury or suspension that kb unbury / kb unsuspend took back since says so and moves on, where it sent the user to kb undo, which buried it again (found as a user)', async () => {
    const { services } = await twoSessions();
    const run = reviewRun(services[0], START);
    const rated = shown(run, START)!;
    expect(run.rate(rated, 3, START + 1_000, 1_000).message).toBeNull();
    const buried = shown(run, START + 1_100)!;
    run.bury(buried, START + 2_000);
    const suspended = shown(run, START + 2_100)!;
    run.suspend(suspended, START + 3_000);
    // From a shell: kb unbury, then kb unsuspend (the latest action, on another card, stands last).
    services[1].act(buried, 'unbury', START + 4_000);
    services[1].act(suspended, 'unsuspend', START + 4_500);
    expect(run.undo(START + 5_000).message).toBe('already unsuspended by another kb (kb unsuspend, or a sync)');
    expect(shown(run, START + 5_100)).toBe(suspended);
    expect(run.undo(START + 6_000).message).toBe('already unburied by another kb (kb unbury, or a sync)');
    expect(shown(run, START + 6_100)).toBe(buried);
    expect(queueOf(run)).toEqual(queueOf(reviewRun(services[1], START + 6_100)));
    // Nothing of the two cards changed by these u: neither is buried or suspended again.
    expect(services[0].queueCard(buried)).toMatchObject({ suspended: false, buriedUntil: null });
    expect(services[0].queueCard(suspended)).toMatchObject({ suspended: false, buriedUntil: null });
    // The next u is this session's rating, still refused while the shell's actions stand after it.
    expect(run.undo(START + 7_000).message).toMatch(/^a later rating or action \(from another kb\) stands in the log/);
    expect(run.counts().done).toBe(1);
  });

  it('reads kb.json again with today\'s queue: a new-card limit raised mid-session takes effect before it says done (found as a user)', async () => {
    const { root, dbs } = await twoSessions();
    let newPerDay = 1;
    const service = () => new ReviewService({ root, db: dbs[0], writable: true, config: { ...defaultConfig, newPerDay } });
    const run = new ReviewRun(service(), '/nowhere', {}, { rescan: async () => [], editor: 'vi', writable: true, startedAt: START, labs: new FakeLabs(), reloadService: service });
    const first = shown(run, START)!;
    run.rate(first, 4, START + 1_000, 1_000);
    expect(run.next(START + 2_000).kind).toBe('done');
    newPerDay = 3;
    const next = shown(run, START + 3_000);
    expect(next).not.toBeNull();
    expect(next).not.toBe(first);
  });

  it('says when kb.json is now invalid as it reads today\'s queue again, and keeps its settings (found by a probe: kept in silence)', async () => {
    const { root, dbs } = await twoSessions();
    const service = new ReviewService({ root, db: dbs[0], writable: true, config: { ...defaultConfig, newPerDay: 1 } });
    let reread: ReviewService | { kept: string } | null = { kept: 'kb.json now invalid (newPerDay); this session keeps its settings' };
    const run = new ReviewRun(service, '/nowhere', {}, { rescan: async () => [], editor: 'vi', writable: true, startedAt: START, labs: new FakeLabs(), reloadService: () => reread });
    const first = shown(run, START)!;
    run.rate(first, 4, START + 1_000, 1_000);
    expect(run.next(START + 2_000)).toEqual({ kind: 'done', notice: 'kb.json now invalid (newPerDay); this session keeps its settings' });
    // Said once: the file is read again only when it changed.
    reread = null;
    expect(run.next(START + 3_000)).toEqual({ kind: 'done' });
  });

  it('--limit N still ends the run after N cards: the queue is not read again (found as a user: --limit 1 never stopped)', async () => {
    const { services } = await twoSessions();
    const run = new ReviewRun(services[0], '/nowhere', { limit: 1 }, { rescan: async () => [], editor: 'vi', writable: true, startedAt: START, labs: new FakeLabs() });
    const card = shown(run, START)!;
    expect(run.rate(card, 4, START + 1_000, 1_000).message).toBeNull();
    expect(run.next(START + 2_000).kind).toBe('done');
  });

  it('a card the other session rated before this one read its page (past the first 50) is never shown here, nor rated twice (a probe: the header follows only the cards read)', async () => {
    const { dbs, services } = await twoSessions(PAGE_SIZE + 20);
    // Every card a review due today: a session reads them PAGE_SIZE at a time.
    dbs[0].prepare('UPDATE fsrs SET state = 2, due = ?, stability = 5, difficulty = 5, reps = 3, scheduled_days = 5, last_review = ?').run(START - 3_600_000, START - 5 * 86_400_000);
    const a = reviewRun(services[0], START);
    let next = a.next(START);
    // The other session's order (its lists read every page; this one's read only the first).
    const target = reviewRun(services[1], START).sessionLists().review[PAGE_SIZE + 10]!;
    services[1].rate(target, 3, START + 500);
    const seen: string[] = [];
    for (let now = START + 1_000; next.kind === 'card'; now += 1_000) {
      seen.push(next.card.id);
      expect(a.rate(next.card.id, 3, now, 1_000).message).toBeNull();
      next = a.next(now);
    }
    expect(seen).toHaveLength(PAGE_SIZE + 19);
    expect(seen).not.toContain(target);
    expect(new Set(seen).size).toBe(seen.length);
    expect(dbs[0].prepare('SELECT count(*) AS n FROM review_log WHERE card_id = ?').pluck().get(target)).toBe(1);
    expect(ratings(dbs[0])).toBe(PAGE_SIZE + 20);
  });

  it('in any interleaving of two sessions, a rating is stored only when the card is as its screen showed it, and a header redrawn counts what a fresh launch counts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ who: fc.nat(1), grade: fc.constantFrom<Grade>(1, 2, 3, 4), gap: fc.integer({ min: 1_000, max: 600_000 }) }), { minLength: 1, maxLength: 16 }), async (steps) => {
        const { dbs, services } = await twoSessions();
        const runs = services.map((service) => reviewRun(service, START));
        const rowOf = (id: string) => dbs[0].prepare('SELECT * FROM fsrs WHERE card_id = ?').get(id) as Record<string, unknown>;
        let now = START;
        // What each session has on screen, and the card's row when it was shown.
        const show = (who: number) => {
          const id = shown(runs[who], now);
          return id === null ? null : { id, row: rowOf(id) };
        };
        const onScreen = [show(0), show(1)];
        for (const { who, grade, gap } of steps) {
          now += gap;
          const card = onScreen[who];
          if (card !== null) {
            const unchanged = JSON.stringify(rowOf(card.id)) === JSON.stringify(card.row);
            const before = ratings(dbs[0]);
            const message = runs[who].rate(card.id, grade, now, 1_000).message;
            expect(message === null || !CHANGED.test(message)).toBe(unchanged);
            expect(ratings(dbs[0])).toBe(before + (unchanged ? 1 : 0));
          }
          onScreen[who] = show(who);
          // Both screens redraw (counts(now)): each takes in what the other did to its queued
          // cards, and then counts what a fresh launch counts, where the card it shows is
          // still as shown (a changed one is left as shown until a key there).
          for (const other of [0, 1]) {
            const { done: _done, ...counts } = runs[other].counts(now);
            const card = onScreen[other];
            if (card !== null && JSON.stringify(rowOf(card.id)) !== JSON.stringify(card.row)) continue;
            const { done: _fresh, ...fresh } = reviewRun(services[other], now).counts();
            expect(counts).toEqual(fresh);
          }
        }
        for (const db of dbs) db.close();
      }),
      { numRuns: 40, seed: 7 },
    );
  });
});
