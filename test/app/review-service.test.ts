// Rating and undo against a real database and real note files.
import fc from 'fast-check';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_ANSWER_MS } from '../../src/srs/review-settings.ts';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { openDatabase, type KbDatabase } from '../../src/store/db.ts';
import { ReviewService, UndoError } from '../../src/app/review/review-service.ts';
import { clockBehindMessage } from '../../src/srs/replay.ts';
import { ReviewRun } from '../../src/app/review/review-run.ts';
import { FakeLabs } from '../ui/fake-labs.ts';
import { tempDir } from '../helpers/kb-cli.ts';

const NOTES: Record<string, string> = {
  'notes/metrics/ttft.md': "---\ncreated: '2025-10-19'\nlast_reviewed: null\nnext_review: '2025-10-19'  # by hand\nreview_count: 0\nmastery_level: 0.0\ntags: [metrics]\n---\n# What is TTFT?\n\n## Answer\n\nTime to the first token.\n",
  'notes/metrics/crlf.md': '---\r\ncreated: 2025-10-19\r\nreview_count: 0\r\n---\r\n# A CRLF note\r\n\r\n## Answer\r\n\r\nLine endings stay.\r\n',
  'notes/metrics/bare.md': '# A note without frontmatter\n\nIts first paragraph is the answer.\n',
};

interface Fixture {
  root: string;
  db: KbDatabase;
  service: ReviewService;
  ids: string[];
}

async function fixture(): Promise<Fixture> {
  const root = tempDir('kb-review-');
  for (const [path, text] of Object.entries(NOTES)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const db = openDatabase(':memory:');
  const target = { root, db, writable: true, config: defaultConfig };
  await scanKnowledgeBase(target, { now: Date.UTC(2026, 0, 1) });
  const ids = (db.prepare('SELECT id FROM cards ORDER BY path').all() as Array<{ id: string }>).map((row) => row.id);
  return { root, db, service: new ReviewService(target), ids };
}

function snapshot(f: Fixture) {
  return {
    fsrs: f.db.prepare('SELECT * FROM fsrs ORDER BY card_id').all(),
    log: f.db.prepare('SELECT uuid, card_id, rating, reviewed_at FROM review_log ORDER BY rowid').all(),
    files: Object.keys(NOTES).map((path) => readFileSync(join(f.root, path))),
  };
}

describe('ReviewService', () => {
  it('keeps a stored rating when recording the rewritten file\'s stamp finds the database busy', async () => {
    const f = await fixture();
    // The stamp is written after the rating's transaction; another process may hold the lock then.
    const files = (f.service as unknown as { files: { followRewrite: () => void } }).files;
    files.followRewrite = () => {
      throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    };
    const outcome = f.service.rate(f.ids[2], 3, Date.UTC(2026, 0, 2, 12));
    expect(outcome.writeback?.status).toBe('written');
    expect(f.db.prepare('SELECT count(*) AS n FROM review_log').get()).toEqual({ n: 1 });
    files.followRewrite = () => {
      throw new TypeError('a bug');
    };
    expect(() => f.service.rate(f.ids[0], 3, Date.UTC(2026, 0, 2, 13))).toThrow('a bug');
  });

  it('records at most a minute of answer time, in the database and in the review log file', async () => {
    const f = await fixture();
    f.service.rate(f.ids[0], 3, Date.UTC(2026, 0, 2, 12), 3_600_000);
    f.service.rate(f.ids[1], 3, Date.UTC(2026, 0, 2, 12, 1), -5);
    expect(f.db.prepare('SELECT duration_ms FROM review_log ORDER BY reviewed_at').pluck().all()).toEqual([MAX_ANSWER_MS, 0]);
    expect(f.db.prepare("SELECT duration_ms FROM review_events WHERE kind = 'rate' ORDER BY at").pluck().all()).toEqual([MAX_ANSWER_MS, 0]);
  });

  it('stores a rating as one log row with the state before and after, and writes the note back', async () => {
    const f = await fixture();
    const now = Date.UTC(2026, 0, 2, 12);
    const outcome = f.service.rate(f.ids[2], 3, now, 5_250);
    expect(outcome.writeback?.status).toBe('written');
    const log = f.db.prepare('SELECT * FROM review_log').get() as Record<string, string | number>;
    expect(log).toMatchObject({ card_id: f.ids[2], rating: 3, reviewed_at: now, duration_ms: 5_250 });
    expect(JSON.parse(log.state_before as string)).toMatchObject({ state: 0, reps: 0 });
    expect(JSON.parse(log.state_after as string)).toMatchObject({ state: 1, reps: 1, last_review: now });
    const text = readFileSync(join(f.root, 'notes/metrics/ttft.md'), 'utf8');
    expect(text).toContain('review_count: 1\n');
    expect(text).toContain("  # by hand\n");
    expect(text).toContain('# What is TTFT?\n\n## Answer\n\nTime to the first token.\n');
  });

  it('undo after any sequence of ratings restores the exact earlier state: rows, log and file bytes', async () => {
    const f = await fixture();
    const step = fc.record({
      card: fc.nat({ max: 2 }),
      grade: fc.constantFrom(1, 2, 3, 4) as fc.Arbitrary<1 | 2 | 3 | 4>,
      minutes: fc.integer({ min: 1, max: 60 * 24 * 40 }),
      undo: fc.boolean(),
    });
    let clock = Date.UTC(2026, 0, 2, 9);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const start = snapshot(f);
        const before: Array<ReturnType<typeof snapshot>> = [];
        for (const s of steps) {
          clock += s.minutes * 60_000;
          if (s.undo && before.length > 0) {
            f.service.undo();
            expect(snapshot(f)).toEqual(before.pop());
          } else {
            before.push(snapshot(f));
            f.service.rate(f.ids[s.card], s.grade, clock, 1000);
          }
        }
        while (before.length > 0) {
          f.service.undo();
          expect(snapshot(f)).toEqual(before.pop());
        }
        expect(snapshot(f)).toEqual(start);
      }),
      { numRuns: 40 },
    );
  });

  it('refuses to undo a rating of a card that changed since; a note edited since keeps its edit, its review fields written from the card again', async () => {
    const f = await fixture();
    const now = Date.UTC(2026, 0, 2, 12);
    f.service.rate(f.ids[2], 3, now);
    f.db.prepare('UPDATE fsrs SET reps = 99 WHERE card_id = ?').run(f.ids[2]);
    expect(() => f.service.undo()).toThrow(UndoError);
    f.db.prepare('UPDATE fsrs SET reps = 1 WHERE card_id = ?').run(f.ids[2]);

    const path = join(f.root, 'notes/metrics/ttft.md');
    writeFileSync(path, `${readFileSync(path, 'utf8')}\nAn edit made after the rating.\n`);
    const edited = readFileSync(path, 'utf8');
    const outcome = f.service.undo();
    // The old bytes cannot go back over the edit; the fields said the rating stood until kb doctor --fix.
    expect(outcome?.file?.status).toBe('written');
    const after = readFileSync(path, 'utf8');
    expect(after).toContain('An edit made after the rating.');
    expect(after).toMatch(/^review_count: 0$/m);
    expect(after.replace(/^(last_reviewed|next_review|review_count|mastery_level):.*\n/gm, '')).toBe(edited.replace(/^(last_reviewed|next_review|review_count|mastery_level):.*\n/gm, ''));
    expect(f.db.prepare('SELECT count(*) AS n FROM review_log').get()).toEqual({ n: 0 });
  });

  it('leaves a bundled (read-only) knowledge base untouched', async () => {
    const f = await fixture();
    const readOnly = new ReviewService({ root: f.root, db: f.db, writable: false, config: defaultConfig });
    const files = snapshot(f).files;
    expect(readOnly.rate(f.ids[2], 4, Date.UTC(2026, 0, 2)).writeback).toBeNull();
    expect(snapshot(f).files).toEqual(files);
  });

  it('builds the queue with the daily new-card limit counted from the log', async () => {
    const f = await fixture();
    const service = new ReviewService({ root: f.root, db: f.db, writable: true, config: { ...defaultConfig, newPerDay: 2 } });
    const morning = new Date(2026, 0, 2, 9).getTime();
    expect(service.queue({}, morning).new).toHaveLength(2);
    service.rate(f.ids[0], 4, morning);
    expect(service.queue({}, morning + 60_000).new).toHaveLength(1);
    service.act(f.ids[1], 'bury', morning);
    expect(service.queue({}, morning + 60_000).new.map((c) => c.id)).toEqual([f.ids[2]]);
    expect(service.queue({ tag: 'metrics' }, morning + 60_000).new.map((c) => c.id)).toEqual([f.ids[2]]);
    expect(service.queue({ deck: 'nothing' }, morning + 60_000).new).toEqual([]);
    const nextMorning = new Date(2026, 0, 3, 9).getTime();
    expect(service.queue({}, nextMorning).new.map((c) => c.id)).toEqual([f.ids[1], f.ids[2]]);
  });

  it("counts tomorrow's load: cards due before the day after tomorrow starts, not new, orphaned or suspended", async () => {
    const f = await fixture();
    const service = f.service;
    const evening = new Date(2026, 0, 2, 21).getTime();
    const tomorrowNoon = new Date(2026, 0, 3, 12).getTime();
    const later = new Date(2026, 0, 9, 12).getTime();
    const set = f.db.prepare('UPDATE fsrs SET state = ?, due = ?, suspended = ? WHERE card_id = ?');
    set.run(2, tomorrowNoon, 0, f.ids[0]);
    set.run(1, tomorrowNoon, 0, f.ids[1]);
    set.run(2, later, 0, f.ids[2]);
    expect(service.dueByEndOfTomorrow(evening)).toBe(2);
    set.run(0, tomorrowNoon, 0, f.ids[1]);
    expect(service.dueByEndOfTomorrow(evening)).toBe(1);
    f.db.prepare('UPDATE cards SET orphan = 1 WHERE id = ?').run(f.ids[0]);
    expect(service.dueByEndOfTomorrow(evening)).toBe(0);
    f.db.prepare('UPDATE cards SET orphan = 0 WHERE id = ?').run(f.ids[0]);
    set.run(2, tomorrowNoon, 1, f.ids[0]);
    expect(service.dueByEndOfTomorrow(evening)).toBe(0);
  });

  it('stores a rating given at a clock set back at the card\'s last review, keeping its log in order, and says the clock looks wrong', async () => {
    const f = await fixture();
    // Local times: the message shows them in the user's time zone.
    const real = new Date(2026, 10, 26, 19).getTime();
    f.service.rate(f.ids[0], 3, real);
    // The clock set back eleven months (faketime, a dead RTC battery).
    const back = new Date(2026, 0, 1, 12).getTime();
    const outcome = f.service.rate(f.ids[0], 3, back);
    expect(outcome.at).toBe(real);
    expect(outcome.before.lastReview).toBe(real);
    const log = f.db.prepare('SELECT reviewed_at FROM review_log WHERE card_id = ? ORDER BY rowid').pluck().all(f.ids[0]) as number[];
    expect(log).toEqual([real, real]);
    expect(clockBehindMessage(outcome.at, back)).toMatch(/^the clock \(2026-01-01 \d\d:\d\d\) is behind this card's last review \(2026-11-26 \d\d:\d\d\): the rating is stored at that time/);
    // A rating that waited a few seconds on another kb's is not a clock problem.
    const waited = f.service.rate(f.ids[0], 3, real - 3_000);
    expect(waited.at).toBe(real);
    expect(clockBehindMessage(waited.at, real - 3_000)).toBeNull();
    expect(clockBehindMessage(real + 60_000, real + 60_000)).toBeNull();
    // The review screen says it in its status line.
    const run = new ReviewRun(f.service, f.root, {}, { rescan: async () => [], editor: 'vi', writable: true, startedAt: back, labs: new FakeLabs() });
    expect(run.rate(f.ids[0], 3, back, 1000).message).toMatch(/^the clock \(2026-01-01 .*check this machine's clock/);
  });
});
