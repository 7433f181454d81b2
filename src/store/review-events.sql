-- Migration 5: the review log files (reviews/<device>.jsonl) and the database as their cache.

-- Every event read from any device's log (or written by this one): the union by id.
-- card_id has no foreign key: a device may log a card this clone has not scanned yet.
-- Keyed in replay order (card, time, device, the device's own order), WITHOUT ROWID: a card's
-- events are read together and in that order, and a clone's first open stores every event,
-- which one ordered b-tree takes about twice as fast as a rowid table with its indexes.
CREATE TABLE review_events (
  id           TEXT NOT NULL,
  device       TEXT NOT NULL,
  n            INTEGER NOT NULL,                       -- place in its device's log
  card_id      TEXT NOT NULL,
  at           INTEGER NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('rate', 'undo', 'suspend', 'unsuspend', 'bury', 'unbury', 'forget')),
  rating       INTEGER CHECK (rating IS NULL OR rating BETWEEN 1 AND 4),
  duration_ms  INTEGER NOT NULL DEFAULT 0,
  target       TEXT,                                   -- undo: the event taken back
  reset_counts INTEGER NOT NULL DEFAULT 0 CHECK (reset_counts IN (0, 1)),
  seed         TEXT CHECK (seed IS NULL OR json_valid(seed)), -- fsrs row before the device's first event on the card
  day          TEXT NOT NULL,
  PRIMARY KEY (card_id, at, device, n, id)
) STRICT, WITHOUT ROWID;
-- The union by id: an event read twice (or merged twice) is stored once.
CREATE UNIQUE INDEX review_events_by_id ON review_events (id);
-- This device's next place in its log.
CREATE INDEX review_events_by_device ON review_events (device, n);

-- How far each log file has been read (bytes), so opening reads only what was appended.
CREATE TABLE review_log_files (
  name   TEXT PRIMARY KEY,                             -- file name inside the log folder
  offset INTEGER NOT NULL
) STRICT;

-- Cards whose events changed since their row was last replayed (a card not scanned yet waits here).
CREATE TABLE replay_pending (
  card_id TEXT PRIMARY KEY
) STRICT;
