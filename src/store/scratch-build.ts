// A database filled from nothing in one transaction (a clone's first open replays every review
// log into it: 100,000 events make ~90 MB of rows) is written once, in a rollback journal,
// rather than twice through the WAL, and without its CHECK constraints (see withScratchBuild).
// In WAL mode the commit appends every new page to the -wal file, and the checkpoint that
// follows copies each one again into the database (0.33 s of a 100,000-event replay); with a
// rollback journal the new pages go straight into the database file, and the journal holds
// only the few pages that existed before (0.11 s).
//
// A crash stays harmless: until the commit, the journal (synced first, synchronous = FULL)
// holds those pages as they were, and whichever connection opens the database next rolls the
// unfinished transaction back from it, as SQLite always does with a hot journal; the database
// is then what it was before (its cards, no history), still in rollback mode, and the next
// kb's open (openDatabase) puts it back in WAL mode and replays the logs again. Killed after
// the commit and before WAL is back, the database is complete, and openDatabase does the same.
//
// The mode changes only when no other connection has the database open: SQLite refuses
// (SQLITE_BUSY) otherwise, and the build then runs in WAL mode as any write. A kb that opens
// the database while the build runs finds it in rollback mode and cannot switch it to WAL
// either: openDatabase leaves it so, and that kb's reads and writes wait for the build's lock
// (busy_timeout) as they would for any writer.
import { setJournalMode, type KbDatabase } from './db.ts';

/**
 * Runs `build` (which opens its own transaction) with the database in rollback-journal mode
 * where it can be switched, then puts WAL back; and with CHECK constraints off (see below).
 */
export function withScratchBuild<T>(db: KbDatabase, build: () => T): T {
  // Inside a transaction SQLite cannot change the journal mode: the build then runs in the one there is.
  const rollback = !db.inTransaction && setJournalMode(db, 'delete');
  const synchronous = db.pragma('synchronous', { simple: true }) as number;
  try {
    // FULL: the journal is synced before the database file is written, so a power cut rolls back.
    if (rollback) db.pragma('synchronous = FULL');
    // The rows of a first replay are all made by kb: events that passed the log's schema (kind,
    // rating, duration and seed, as review_events' CHECKs say them again), states it computed and
    // JSON it wrote (JSON.stringify, columnsJson). SQLite's CHECKs would parse each state's JSON
    // once more (json_valid, twice a rating): 0.15 s of a 100,000-event replay. Types (STRICT),
    // NOT NULL, keys and foreign keys are still enforced. The pragma makes SQLite re-prepare every
    // statement, so those prepared before and after it check again.
    db.pragma('ignore_check_constraints = ON');
    return build();
  } finally {
    db.pragma('ignore_check_constraints = OFF');
    if (rollback) {
      db.pragma(`synchronous = ${synchronous}`);
      // Busy (another kb opened it meanwhile and is reading): it stays in rollback mode until the next open switches it.
      setJournalMode(db, 'wal');
    }
  }
}
