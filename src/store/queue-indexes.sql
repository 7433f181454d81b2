-- Migration 2: today's queue from indexes. kb review counts the due reviews and the new
-- cards when it opens and reads them a page at a time; with thousands due, reading every
-- card's row for that took longer than drawing the first card.

-- The review and new-card counts: state, due and burial without reading fsrs rows.
CREATE INDEX fsrs_queue ON fsrs (state, due, buried_until) WHERE suspended = 0;

-- Orphaned cards (their source is gone), few, subtracted from those counts.
CREATE INDEX cards_orphaned ON cards (id) WHERE orphan = 1;

-- New cards in knowledge-base order, so a page of them is read from the head of this index
-- instead of sorting every new card.
CREATE INDEX cards_new_order ON cards (path, line, id) WHERE orphan = 0;
