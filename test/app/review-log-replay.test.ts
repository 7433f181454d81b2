// The review log as the truth: two devices rate, act and undo on their own clocks, each
// appending to its own file in a shared folder and reading the other's at random moments
// (a git pull). Whatever the interleaving, both end with the rows a fresh database replays
// from the files, and undo, bury, forget and leeches merge like ratings.
import fc from 'fast-check';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cardQueries, type CardContent } from '../../src/store/card-rows.ts';
import { openDatabase, type KbDatabase } from '../../src/store/db.ts';
import { fsrsQueries } from '../../src/store/review-writes.ts';
import { ReviewLog } from '../../src/app/review-log/review-log.ts';
import { ReviewService, UndoError } from '../../src/app/review/review-service.ts';
import { cardsOffTheirLog } from '../../src/store/log-replay.ts';
import { FsrsScheduler } from '../../src/srs/fsrs.ts';
import { newCardState } from '../../src/kb/seed-fsrs.ts';
import { tempDir } from '../helpers/kb-cli.ts';
import { testSettings } from '../srs/settings.ts';

const CARDS = ['c1', 'c2', 'c3'];
const START = Date.UTC(2026, 0, 5, 12);
const settings = testSettings({ leechThreshold: 2, leechAction: 'suspend' });

function content(id: string): CardContent {
  return {
    id, kind: 'card', path: 'cards/deck.md', line: 1 + CARDS.indexOf(id), deck: 'deck', front: `Q ${id}?`, back: `A ${id}.`, full: '', tags: [],
    lab: null, calc: null, contentHash: id, fileSize: 1, fileMtimeMs: 1, idInFile: true,
  };
}

interface Device {
  db: KbDatabase;
  service: ReviewService;
  log: ReviewLog;
  clock: number;
}

function device(folder: string): Device {
  const db = openDatabase(':memory:');
  const cards = cardQueries(db);
  const fsrs = fsrsQueries(db);
  for (const id of CARDS) {
    cards.insert(content(id), START);
    fsrs.write(id, newCardState(START));
  }
  const target = { root: folder, writable: false, db, config: settings, reviewLogFolder: folder };
  return { db, service: new ReviewService(target), log: new ReviewLog(db, folder, new FsrsScheduler(settings)), clock: START };
}

function rows(db: KbDatabase): unknown[] {
  return db.prepare('SELECT * FROM fsrs ORDER BY card_id').all();
}

type Op =
  | { kind: 'rate'; card: number; grade: 1 | 2 | 3 | 4 }
  | { kind: 'suspend' | 'unsuspend' | 'bury' | 'forget'; card: number }
  | { kind: 'undo' }
  | { kind: 'pull' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('rate' as const), card: fc.nat(2), grade: fc.constantFrom(1 as const, 2 as const, 3 as const, 4 as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('suspend' as const, 'unsuspend' as const, 'bury' as const, 'forget' as const), card: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'undo' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'pull' as const }) },
);

/** One step of one device, `gap` ms after its previous step on its own clock. */
const step = fc.record({ device: fc.nat(1), gap: fc.integer({ min: 1, max: 3 * 86_400_000 }), op });

function apply(target: Device, action: Op): void {
  const at = target.clock;
  switch (action.kind) {
    case 'rate':
      target.service.rate(CARDS[action.card], action.grade, at);
      return;
    case 'undo':
      try {
        target.service.undo();
      } catch (error) {
        if (!(error instanceof UndoError)) throw error;
      }
      return;
    case 'pull':
      target.log.ingest({ root: '', writable: false });
      return;
    default:
      target.service.act(CARDS[action.card], action.kind, at);
  }
}

describe('review log replay', () => {
  it('any interleaving of two devices\' events replays to the same rows on both and on a fresh database', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), (steps) => {
        const folder = tempDir('kb-logs-');
        const devices = [device(folder), device(folder)];
        for (const { device: which, gap, op: action } of steps) {
          devices[which].clock += gap;
          apply(devices[which], action);
        }
        for (const each of devices) each.log.ingest({ root: '', writable: false });
        const fresh = device(folder);
        fresh.log.ingest({ root: '', writable: false });
        expect(rows(devices[0].db)).toEqual(rows(fresh.db));
        expect(rows(devices[1].db)).toEqual(rows(fresh.db));
      }),
      { numRuns: 40 },
    );
  });

  it('an imported copy of another device\'s rating counts once on both and on a fresh database; a database that counted it twice is replayed once', () => {
    const folder = tempDir('kb-logs-');
    const [a, b] = [device(folder), device(folder)];
    a.service.rate('c1', 3, START + 1000);
    a.service.rate('c2', 1, START + 2000);
    // B imports A's export before it has read A's log: the reviews under ids of their own.
    b.log.importEvents(
      [
        { id: 'revlog-1', card: 'c1', at: START + 1000, kind: 'rate', rating: 3, duration: 0, startsNew: true },
        { id: 'revlog-2', card: 'c2', at: START + 2000, kind: 'rate', rating: 1, duration: 0, startsNew: true },
      ],
      { root: '', writable: false },
    );
    for (const each of [a, b]) each.log.ingest({ root: '', writable: false });
    const fresh = device(folder);
    fresh.log.ingest({ root: '', writable: false });
    for (const each of [a, b]) {
      expect(rows(each.db)).toEqual(rows(fresh.db));
      expect(cardsOffTheirLog(each.db)).toEqual([]);
    }
    expect((rows(fresh.db) as Array<{ reps: number }>).map((row) => row.reps)).toEqual([1, 1, 0]);
    // A database replayed before the rule (the copy counted): its next open replays those cards.
    a.db.exec("UPDATE fsrs SET reps = 2 WHERE card_id = 'c1'; DELETE FROM meta WHERE key = 'replay_rules'");
    a.log.ingest({ root: '', writable: false });
    expect(rows(a.db)).toEqual(rows(fresh.db));
  });

  it('a line appended without its transaction (kb killed between the two) is applied on the next start', () => {
    const folder = tempDir('kb-logs-');
    const first = device(folder);
    first.service.rate('c1', 3, START + 1000);
    const path = first.log.path;
    const line = JSON.parse(readFileSync(path, 'utf8').trim()) as Record<string, unknown>;
    // The same device logs a second rating whose transaction then never committed.
    appendFileSync(path, `${JSON.stringify({ ...line, id: 'lost-commit', n: 1, at: START + 60_000, rating: 1, from: undefined })}\n`);
    const before = rows(first.db);
    first.service.rate('c2', 3, START + 120_000);
    const after = rows(first.db) as Array<{ card_id: string; reps: number; lapses: number }>;
    expect(after).not.toEqual(before);
    expect(after.find((row) => row.card_id === 'c1')?.reps).toBe(2);
    const fresh = device(folder);
    fresh.log.ingest({ root: '', writable: false });
    expect(rows(fresh.db)).toEqual(after);
  });

  it('says before a replay how many events it goes over and why: new events, or every event under new settings', () => {
    const folder = tempDir('kb-logs-');
    const writer = device(folder);
    writer.service.rate('c1', 3, START + 1000);
    writer.service.rate('c2', 1, START + 2000);
    const reader = device(folder);
    const heard: unknown[] = [];
    const onReplay = (replay: unknown) => heard.push(replay);
    reader.log.ingest({ root: '', writable: false, onReplay });
    expect(heard).toEqual([{ events: 2, cause: 'logs' }]);
    // Nothing new: no replay, not a word.
    reader.log.ingest({ root: '', writable: false, onReplay });
    expect(heard).toHaveLength(1);
    writer.service.rate('c3', 4, START + 3000);
    reader.log.ingest({ root: '', writable: false, onReplay });
    expect(heard[1]).toEqual({ events: 1, cause: 'logs' });
    // New settings (kb.json changed): every event is replayed.
    const retuned = new ReviewLog(reader.db, folder, new FsrsScheduler({ ...settings, desiredRetention: 0.8 }));
    retuned.ingest({ root: '', writable: false, onReplay });
    expect(heard[2]).toEqual({ events: 3, cause: 'settings' });
  });

  it('skips a line that is not an event, names it, and reads the rest; a half-written last line waits', () => {
    const folder = tempDir('kb-logs-');
    const writer = device(folder);
    writer.service.rate('c1', 3, START + 1000);
    appendFileSync(writer.log.path, 'not json\n{"id":"half');
    const reader = device(folder);
    const report = reader.log.ingest({ root: '', writable: false });
    expect(report.read).toBe(1);
    expect(report.problems).toEqual([expect.stringMatching(/^reviews\/.+\.jsonl at byte \d+: not JSON; line skipped$/)]);
    expect(rows(reader.db)).toEqual(rows(writer.db));
    expect(reader.log.ingest({ root: '', writable: false }).problems).toEqual([]);
  });

  it('a long log whose events carry no seed replays the same read at once (stored in bulk, indexes built after) or in two parts', () => {
    const folder = tempDir('kb-logs-');
    // 6,000 events, enough for the bulk path to drop and rebuild the indexes; a few repeated
    // (the same line read twice in a merge) and an undo.
    const lines: string[] = [];
    let rating = 1;
    for (let n = 0; n < 6_000; n++) {
      rating = (rating * 7 + n) % 4 + 1;
      lines.push(JSON.stringify({ id: `e-${(n * 7919) % 6_000}`, device: 'other', n, card: CARDS[n % 3], at: START + n * 3_600_000, kind: 'rate', day: '2026-01-05', rating }));
    }
    lines.push(JSON.stringify({ id: 'undo-1', device: 'other', n: 6_000, card: 'c1', at: START + 6_000 * 3_600_000, kind: 'undo', day: '2026-01-05', target: 'e-5997' }));
    lines.push(lines[10], lines[20]);
    const text = `${lines.join('\n')}\n`;
    writeFileSync(join(folder, 'other.jsonl'), text);
    const whole = device(folder);
    expect(whole.log.ingest({ root: '', writable: false }).read).toBe(6_001);

    const partsFolder = tempDir('kb-logs-');
    const parts = device(partsFolder);
    const half = text.indexOf('\n', text.length / 2) + 1;
    writeFileSync(join(partsFolder, 'other.jsonl'), text.slice(0, half));
    parts.log.ingest({ root: '', writable: false });
    appendFileSync(join(partsFolder, 'other.jsonl'), text.slice(half));
    parts.log.ingest({ root: '', writable: false });

    const history = (db: KbDatabase) => db.prepare('SELECT uuid, card_id, rating, reviewed_at, state_before, state_after FROM review_log ORDER BY uuid').all();
    expect(rows(whole.db)).toEqual(rows(parts.db));
    expect(history(whole.db)).toEqual(history(parts.db));
    expect(history(whole.db)).toHaveLength(5_999);
    expect(cardsOffTheirLog(whole.db)).toEqual([]);
    expect(whole.db.pragma('integrity_check', { simple: true })).toBe('ok');
    const indexes = (db: KbDatabase) => db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").all();
    expect(indexes(whole.db)).toEqual(indexes(device(tempDir('kb-logs-')).db));
  });
});
