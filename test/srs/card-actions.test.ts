// Card actions (kb suspend | unsuspend | unbury | forget, the review screen's b and s),
// leeches, and kb undo over ratings and actions together, against a real database.
import fc from 'fast-check';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig, type KbConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { CARD_ACTIONS, type CardAction } from '../../src/store/card-action-log.ts';
import { openDatabase, type KbDatabase } from '../../src/store/db.ts';
import { cardsOffTheirLog } from '../../src/store/log-replay.ts';
import { ReviewRun } from '../../src/app/review/review-run.ts';
import { ReviewService } from '../../src/app/review/review-service.ts';
import { FakeLabs } from '../ui/fake-labs.ts';
import type { Grade } from '../../src/model/fsrs-state.ts';
import { tempDir } from '../helpers/kb-cli.ts';

const NOW = new Date(2026, 2, 10, 9).getTime();
const DAY = 86_400_000;

async function fixture(config: Partial<KbConfig> = {}): Promise<{ db: KbDatabase; service: ReviewService; ids: string[] }> {
  const root = tempDir('kb-actions-');
  mkdirSync(join(root, 'cards'), { recursive: true });
  writeFileSync(join(root, 'cards/deck.md'), ['one', 'two', 'three'].map((n) => `## Card ${n}?\n\nAnswer ${n}.\n`).join('\n'));
  const db = openDatabase(':memory:');
  const target = { root, db, writable: true, config: { ...defaultConfig, ...config } };
  await scanKnowledgeBase(target, { now: NOW - 30 * DAY });
  const ids = (db.prepare('SELECT id FROM cards ORDER BY line').all() as Array<{ id: string }>).map((row) => row.id);
  return { db, service: new ReviewService(target), ids };
}

const snapshot = (db: KbDatabase) => ({
  fsrs: db.prepare('SELECT * FROM fsrs ORDER BY card_id').all(),
  log: db.prepare('SELECT uuid FROM review_log ORDER BY rowid').all(),
  actions: db.prepare('SELECT uuid FROM card_actions ORDER BY rowid').all(),
});

describe('card actions', () => {
  it('suspend, unsuspend, bury, unbury and forget change the row, are logged, and kb undo takes each back', async () => {
    const f = await fixture();
    const [id] = f.ids;
    f.service.rate(id, 3, NOW);
    f.service.rate(id, 3, NOW + 600_000);
    const start = snapshot(f.db);
    const row = () => f.db.prepare('SELECT state, reps, lapses, stability, suspended, buried_until FROM fsrs WHERE card_id = ?').get(id);

    expect(f.service.act(id, 'suspend', NOW + DAY).uuid).not.toBeNull();
    expect(row()).toMatchObject({ suspended: 1 });
    expect(f.service.act(id, 'suspend', NOW + DAY).uuid).toBeNull();
    expect(f.service.undo()).toMatchObject({ action: 'suspend', cardId: id, grade: null });
    expect(snapshot(f.db)).toEqual(start);

    f.service.act(id, 'bury', NOW + DAY);
    expect(row()).toMatchObject({ buried_until: f.service.dayEnd(NOW + DAY) });
    f.service.act(id, 'unbury', NOW + DAY);
    expect(row()).toMatchObject({ buried_until: null });
    f.service.act(id, 'forget', NOW + DAY);
    expect(row()).toMatchObject({ state: 0, stability: 0, reps: 2 });
    f.service.act(id, 'forget', NOW + DAY, { resetCounts: true });
    expect(row()).toMatchObject({ state: 0, reps: 0, lapses: 0 });
    expect(f.service.undo()?.action).toBe('forget');
    expect(f.service.undo()?.action).toBe('forget');
    expect(f.service.undo()?.action).toBe('unbury');
    expect(f.service.undo()?.action).toBe('bury');
    expect(snapshot(f.db)).toEqual(start);
    expect(f.service.undo()?.action).toBe('rate');
  });

  it('kb undo takes back ratings and actions latest first, whatever their mix, back to the start', async () => {
    const f = await fixture();
    type Step = { card: number; do: Grade | CardAction };
    const step: fc.Arbitrary<Step> = fc.record({ card: fc.nat({ max: 2 }), do: fc.constantFrom<Grade | CardAction>(1, 2, 3, 4, ...CARD_ACTIONS) });
    let clock = NOW;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const history = [snapshot(f.db)];
        for (const s of steps) {
          clock += 3_600_000;
          const changed = typeof s.do === 'number' ? (f.service.rate(f.ids[s.card], s.do, clock), true) : f.service.act(f.ids[s.card], s.do, clock).uuid !== null;
          if (changed) history.push(snapshot(f.db));
          expect(cardsOffTheirLog(f.db)).toEqual([]);
        }
        history.pop();
        while (history.length > 0) {
          f.service.undo();
          expect(snapshot(f.db)).toEqual(history.pop());
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a rating that reaches leechThreshold lapses flags the card; leechAction suspend also suspends it; undo takes both back', async () => {
    for (const leechAction of ['tag', 'suspend'] as const) {
      const f = await fixture({ leechThreshold: 2, leechAction });
      const [id] = f.ids;
      f.service.rate(id, 4, NOW);
      const flags = () => f.db.prepare('SELECT lapses, leech, suspended FROM fsrs WHERE card_id = ?').get(id);
      let clock = NOW;
      const lapse = () => {
        clock += 30 * DAY;
        const outcome = f.service.rate(id, 1, clock);
        clock += 30 * DAY;
        f.service.rate(id, 4, clock);
        return outcome.leech;
      };
      expect(lapse()).toBeNull();
      expect(flags()).toEqual({ lapses: 1, leech: 0, suspended: 0 });
      expect(lapse()).toBe(leechAction);
      expect(flags()).toEqual({ lapses: 2, leech: 1, suspended: leechAction === 'suspend' ? 1 : 0 });
      f.service.undo();
      f.service.undo();
      expect(flags()).toEqual({ lapses: 1, leech: 0, suspended: 0 });
    }
  });
});

describe('forget of a note', () => {
  it('writes the note\'s review fields back, and undo puts its old bytes back', async () => {
    const root = tempDir('kb-forget-');
    mkdirSync(join(root, 'notes'), { recursive: true });
    const path = join(root, 'notes/ttft.md');
    writeFileSync(path, "---\nreview_count: 0  # kept\nmastery_level: 0.0\nnext_review: '2026-01-01'\n---\n# What is TTFT?\n\nTime to the first token.\n");
    const db = openDatabase(':memory:');
    const target = { root, db, writable: true, config: defaultConfig };
    await scanKnowledgeBase(target, { now: NOW - DAY });
    const service = new ReviewService(target);
    const id = (db.prepare('SELECT id FROM cards').get() as { id: string }).id;
    service.rate(id, 4, NOW);
    const rated = readFileSync(path, 'utf8');
    expect(rated).toMatch(/mastery_level: 0\.[1-9]/);
    const outcome = service.act(id, 'forget', NOW + DAY, { resetCounts: true });
    expect(outcome.writeback?.status).toBe('written');
    const forgotten = readFileSync(path, 'utf8');
    expect(forgotten).toContain('review_count: 0  # kept\n');
    expect(forgotten).toContain('mastery_level: 0\n');
    expect(service.undo()).toMatchObject({ action: 'forget', file: { status: 'restored' } });
    expect(readFileSync(path, 'utf8')).toBe(rated);
  });
});

describe('a leech in kb review', () => {
  it('the rating that makes it says so once; a suspended leech leaves the session', async () => {
    const f = await fixture({ leechThreshold: 1, leechAction: 'suspend' });
    const [id] = f.ids;
    f.service.rate(id, 4, NOW - 30 * DAY);
    const run = new ReviewRun(f.service, '/nowhere', {}, { rescan: async () => [], editor: 'vi', writable: true, startedAt: NOW, labs: new FakeLabs() });
    expect(run.next(NOW)).toMatchObject({ kind: 'card', card: { id } });
    expect(run.rate(id, 1, NOW, 1000).message).toBe('leech: 1 lapse; suspended (kb unsuspend brings it back, kb cards --state leech lists leeches)');
    expect(run.sessionLists().learning).not.toContain(id);
    const next = run.next(NOW);
    expect(next.kind === 'card' && next.card.id).not.toBe(id);
    if (next.kind === 'card') expect(run.rate(next.card.id, 3, NOW + 1000, 1000).message).toBeNull();
    run.undo(NOW + 2000);
    run.undo(NOW + 3000);
    expect(run.next(NOW + 3000)).toMatchObject({ kind: 'card', card: { id } });
    expect(f.db.prepare('SELECT leech, suspended FROM fsrs WHERE card_id = ?').get(id)).toEqual({ leech: 0, suspended: 0 });
  });
});

describe('cardsOffTheirLog', () => {
  it('finds a card whose schedule does not replay from its log: a lost rating, or a row changed behind kb', async () => {
    const f = await fixture();
    f.service.rate(f.ids[0], 3, NOW);
    f.service.rate(f.ids[0], 3, NOW + 600_000);
    f.service.rate(f.ids[1], 3, NOW);
    expect(cardsOffTheirLog(f.db)).toEqual([]);
    // Two rows from one state: what two kb rate at once used to store.
    const first = f.db.prepare('SELECT state_before FROM review_log WHERE card_id = ? ORDER BY rowid LIMIT 1').get(f.ids[0]) as { state_before: string };
    f.db.prepare('UPDATE review_log SET state_before = ? WHERE card_id = ? AND reviewed_at = ?').run(first.state_before, f.ids[0], NOW + 600_000);
    f.db.prepare('UPDATE fsrs SET reps = 7 WHERE card_id = ?').run(f.ids[1]);
    const problems = cardsOffTheirLog(f.db);
    expect(problems.map((p) => p.id).sort()).toEqual([f.ids[0], f.ids[1]].sort());
    expect(problems.find((p) => p.id === f.ids[0])?.kind).toBe('lost');
    expect(problems.find((p) => p.id === f.ids[1])).toMatchObject({ kind: 'row', differences: [{ field: 'reps', found: 7, expected: 1 }] });
  });
});
