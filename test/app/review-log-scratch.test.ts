// A clone's first open fills an empty database from long logs (store/scratch-build.ts): in a
// rollback journal, with the CHECKs off, then WAL again. Its rows are those the same logs give
// read in parts through the ordinary path; so are those of a clone whose first read stores the
// events before its scan finds the cards, and of one whose database another kb holds open.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cardQueries, type CardContent } from '../../src/store/card-rows.ts';
import { openDatabase, type KbDatabase } from '../../src/store/db.ts';
import { fsrsQueries } from '../../src/store/review-writes.ts';
import { ReviewLog } from '../../src/app/review-log/review-log.ts';
import { cardsOffTheirLog } from '../../src/store/log-replay.ts';
import { FsrsScheduler } from '../../src/srs/fsrs.ts';
import { newCardState } from '../../src/kb/seed-fsrs.ts';
import { seededRandom } from '../../src/kb/seeded-random.ts';
import { tempDir } from '../helpers/kb-cli.ts';
import { testSettings } from '../srs/settings.ts';

const START = Date.UTC(2026, 0, 5, 12);
const CARDS = Array.from({ length: 60 }, (_, i) => `card-${String(i).padStart(2, '0')}`);
const settings = testSettings({ leechThreshold: 3, leechAction: 'suspend', fuzz: true });

function content(id: string, line: number): CardContent {
  return {
    id, kind: 'card', path: 'cards/deck.md', line, deck: 'deck', front: `Q ${id}?`, back: `A ${id}.`, full: '', tags: [],
    lab: null, calc: null, contentHash: id, fileSize: 1, fileMtimeMs: 1, idInFile: true,
  };
}

function addCards(db: KbDatabase): void {
  const cards = cardQueries(db);
  const fsrs = fsrsQueries(db);
  CARDS.forEach((id, index) => {
    cards.insert(content(id, index + 1), START);
    fsrs.write(id, newCardState(START));
  });
}

/** Two devices' logs, over 1 MB together: ratings, seeds, undos, actions, a line read twice, a broken line. */
function writeLogs(folder: string): void {
  const random = seededRandom(5);
  const files: Record<string, string[]> = { laptop: [], desktop: [] };
  const n: Record<string, number> = { laptop: 0, desktop: 0 };
  const seeded = new Set<string>();
  let id = 0;
  for (const card of CARDS) {
    let at = START + Math.floor(random() * 86_400_000);
    const rated: string[] = [];
    for (let k = 0; k < 140; k++) {
      const device = random() < 0.6 ? 'laptop' : 'desktop';
      at += Math.floor(random() * 4 * 86_400_000);
      const event: Record<string, unknown> = { id: `ev-${id++}-${card}`, device, n: n[device]++, card, at, kind: 'rate', day: '2026-01-05' };
      const draw = random();
      if (draw < 0.85) {
        event.rating = 1 + Math.floor(random() * 4);
        event.duration = Math.floor(random() * 9_000);
        rated.push(event.id as string);
      } else if (draw < 0.9 && rated.length > 0) Object.assign(event, { kind: 'undo', target: rated[rated.length - 1] });
      else if (draw < 0.95) event.kind = random() < 0.5 ? 'suspend' : 'unsuspend';
      else Object.assign(event, { kind: 'forget', reset: random() < 0.5 });
      if (!seeded.has(`${device}/${card}`)) {
        seeded.add(`${device}/${card}`);
        event.from = { due: newCardState(START).due, stability: 0, difficulty: 0, elapsed_days: 0, scheduled_days: 0, learning_steps: 0, reps: 0, lapses: 0, state: 0, last_review: null, suspended: 0, buried_until: null, leech: 0 };
      }
      files[device].push(JSON.stringify(event));
    }
  }
  files.laptop.push(files.desktop[7], 'not an event');
  for (const [device, lines] of Object.entries(files)) writeFileSync(join(folder, `${device}.jsonl`), `${lines.join('\n')}\n`);
}

const journalMode = (db: KbDatabase) => db.pragma('journal_mode', { simple: true });

function tables(db: KbDatabase) {
  return {
    fsrs: db.prepare('SELECT * FROM fsrs ORDER BY card_id').all(),
    log: db.prepare('SELECT uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id FROM review_log ORDER BY uuid').all(),
    actions: db.prepare('SELECT uuid, card_id, action, acted_at, state_before, state_after, after_rating, device_id FROM card_actions ORDER BY uuid').all(),
    events: db.prepare('SELECT * FROM review_events ORDER BY id').all(),
  };
}

/** The same logs through the ordinary path: a database in memory, which reads them in two parts. */
function readInParts(folder: string): KbDatabase {
  const partsFolder = tempDir('kb-logs-');
  const db = openDatabase(':memory:');
  addCards(db);
  const log = new ReviewLog(db, partsFolder, new FsrsScheduler(settings));
  for (const name of ['desktop.jsonl', 'laptop.jsonl']) {
    const text = readFileSync(join(folder, name), 'utf8');
    writeFileSync(join(partsFolder, name), text.slice(0, text.indexOf('\n', 2_000) + 1));
  }
  log.ingest({ root: '', writable: false });
  for (const name of ['desktop.jsonl', 'laptop.jsonl']) writeFileSync(join(partsFolder, name), readFileSync(join(folder, name), 'utf8'));
  log.ingest({ root: '', writable: false });
  return db;
}

describe('a first open of long logs', () => {
  it('fills the database in a rollback journal and leaves it in WAL mode, with the rows of an ordinary read', () => {
    const folder = tempDir('kb-logs-');
    writeLogs(folder);
    const path = join(tempDir('kb-db-'), 'kb.db');
    const db = openDatabase(path);
    addCards(db);
    const modes: unknown[] = [];
    const report = new ReviewLog(db, folder, new FsrsScheduler(settings)).ingest({ root: '', writable: false, onReplay: () => modes.push(journalMode(db)) });
    expect(modes).toEqual(['delete']);
    expect(report.problems).toHaveLength(1);
    expect(journalMode(db)).toBe('wal');
    expect(existsSync(`${path}-journal`)).toBe(false);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(cardsOffTheirLog(db)).toEqual([]);
    const expected = tables(readInParts(folder));
    expect((expected.log as unknown[]).length).toBeGreaterThan(6_000);
    expect(tables(db)).toEqual(expected);
    db.close();
  });

  it('of a clone, which stores the events before its scan finds the cards, then replays them: the same rows', () => {
    const folder = tempDir('kb-logs-');
    writeLogs(folder);
    const path = join(tempDir('kb-db-'), 'kb.db');
    const db = openDatabase(path);
    const log = new ReviewLog(db, folder, new FsrsScheduler(settings));
    const modes: unknown[] = [];
    log.ingest({ root: '', writable: false, onReplay: () => modes.push(journalMode(db)) });
    expect(modes).toEqual(['delete']);
    expect(db.prepare('SELECT count(*) FROM review_log').pluck().get()).toBe(0);
    addCards(db);
    log.ingest({ root: '', writable: false });
    expect(journalMode(db)).toBe('wal');
    expect(tables(db)).toEqual(tables(readInParts(folder)));
    db.close();
  });

  it('while another kb holds the database open: in WAL mode, the same rows', () => {
    const folder = tempDir('kb-logs-');
    writeLogs(folder);
    const path = join(tempDir('kb-db-'), 'kb.db');
    const db = openDatabase(path);
    addCards(db);
    const other = openDatabase(path);
    const modes: unknown[] = [];
    new ReviewLog(db, folder, new FsrsScheduler(settings)).ingest({ root: '', writable: false, onReplay: () => modes.push(journalMode(db)) });
    expect(modes).toEqual(['wal']);
    expect(tables(other)).toEqual(tables(readInParts(folder)));
    other.close();
    db.close();
  });
});
