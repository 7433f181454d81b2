// The least a replay of review logs costs on this machine, with no kb code: the log file read
// and each line parsed, each event stored once (a WITHOUT ROWID table keyed as kb keys its
// events, and the unique index on the event id that makes a merge a union), one ts-fsrs step
// per rating in each card's order, one row per card; one transaction, in a file of its own.
// bench/review-log.ts runs it beside kb's replay of the same log: what kb adds over it is the
// history kb keeps (review_log's rows for undo, stats and the revlog export), the checks and the
// bookkeeping of an incremental read.
import Database from 'better-sqlite3';
import { readFileSync, rmSync } from 'node:fs';
import { createEmptyCard, fsrs, type Grade } from 'ts-fsrs';

interface LoggedRating {
  id: string;
  device: string;
  n: number;
  card: string;
  at: number;
  kind: string;
  rating: Grade;
  day: string;
}

/** Replays the ratings of `logPath` into a new database at `dbPath`; returns the number of cards. */
export function bareReplay(logPath: string, dbPath: string): number {
  rmSync(dbPath, { force: true });
  const db = new Database(dbPath);
  try {
    db.exec(`CREATE TABLE events (id TEXT NOT NULL, device TEXT NOT NULL, n INTEGER NOT NULL, card_id TEXT NOT NULL, at INTEGER NOT NULL,
               kind TEXT NOT NULL, rating INTEGER, day TEXT NOT NULL, PRIMARY KEY (card_id, at, device, n, id)) STRICT, WITHOUT ROWID;
             CREATE TABLE cards (card_id TEXT PRIMARY KEY, due INTEGER NOT NULL, stability REAL NOT NULL, difficulty REAL NOT NULL,
               reps INTEGER NOT NULL, lapses INTEGER NOT NULL, state INTEGER NOT NULL, last_review INTEGER) STRICT;`);
    const events = readFileSync(logPath, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as LoggedRating);
    events.sort((a, b) => (a.card < b.card ? -1 : a.card > b.card ? 1 : a.at - b.at || a.n - b.n));
    const scheduler = fsrs();
    let cards = 0;
    db.transaction(() => {
      const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      for (const e of events) insert.run(e.id, e.device, e.n, e.card, e.at, e.kind, e.rating, e.day);
      db.exec('CREATE UNIQUE INDEX events_by_id ON events (id)');
      const put = db.prepare('INSERT INTO cards VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      for (let k = 0; k < events.length; cards++) {
        const cardId = events[k].card;
        let card = createEmptyCard(new Date(events[k].at));
        for (; k < events.length && events[k].card === cardId; k++) card = scheduler.next(card, new Date(events[k].at), events[k].rating).card;
        put.run(cardId, card.due.getTime(), card.stability, card.difficulty, card.reps, card.lapses, card.state, card.last_review?.getTime() ?? null);
      }
    })();
    return cards;
  } finally {
    db.close();
  }
}
