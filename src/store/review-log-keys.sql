-- Migration 7: review_log's uuid becomes a unique index instead of the table's PRIMARY KEY.
-- A PRIMARY KEY's index cannot be dropped, so a clone's first open, which writes one row per
-- rating of the whole history (100,000 random UUIDs), inserted every key into it in random
-- order (~0.3 s of a ~1.7 s replay); an index of its own is dropped and built after, as one
-- sort (rebuilt-indexes.ts). Rows keep their rowid: kb undo orders a device's ratings by it.
CREATE TABLE review_log_rebuilt (
  uuid         TEXT NOT NULL,
  card_id      TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
  rating       INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),   -- again, hard, good, easy
  reviewed_at  INTEGER NOT NULL,
  duration_ms  INTEGER NOT NULL CHECK (duration_ms >= 0),
  state_before TEXT NOT NULL CHECK (json_valid(state_before)),    -- fsrs row before the rating
  state_after  TEXT NOT NULL CHECK (json_valid(state_after)),
  device_id    TEXT NOT NULL
) STRICT;
INSERT INTO review_log_rebuilt (rowid, uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id)
  SELECT rowid, uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id FROM review_log ORDER BY rowid;
DROP TABLE review_log;
ALTER TABLE review_log_rebuilt RENAME TO review_log;
CREATE UNIQUE INDEX review_log_by_uuid ON review_log (uuid);
CREATE INDEX review_log_by_card ON review_log (card_id, reviewed_at);
CREATE INDEX review_log_by_time ON review_log (reviewed_at);
