-- Migration 3: what a user does to a card besides rating it, and leeches.

-- One row per action on a card that stands: suspend, unsuspend, bury, unbury, forget. Like
-- review_log for ratings: kb undo deletes the row (in the transaction that puts the card's
-- row back from state_before), so kb undo takes back actions and ratings latest first.
CREATE TABLE card_actions (
  uuid         TEXT PRIMARY KEY,
  card_id      TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
  action       TEXT NOT NULL CHECK (action IN ('suspend', 'unsuspend', 'bury', 'unbury', 'forget')),
  acted_at     INTEGER NOT NULL,
  state_before TEXT NOT NULL CHECK (json_valid(state_before)),   -- fsrs row before the action
  state_after  TEXT NOT NULL CHECK (json_valid(state_after)),
  -- review_log.uuid of the rating stored last when this action was taken (NULL: none), so
  -- undo tells which came later without comparing clocks: the action, if that rating is
  -- still the latest; else the rating.
  after_rating TEXT,
  device_id    TEXT NOT NULL
) STRICT;
CREATE INDEX card_actions_by_card ON card_actions (card_id, acted_at);

-- A leech: a card that lapsed leechThreshold times (kb.json), as Anki tags it. Kept with
-- the schedule rather than written into the card's file.
ALTER TABLE fsrs ADD COLUMN leech INTEGER NOT NULL DEFAULT 0 CHECK (leech IN (0, 1));
CREATE INDEX fsrs_leeches ON fsrs (card_id) WHERE leech = 1;
