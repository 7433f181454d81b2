-- Migration 2: today's queue counted from indexes alone. kb review counts the due reviews
-- and the new cards when it opens; with thousands due, reading every card's row for that
-- took longer than drawing the first card.

-- The review and new-card counts: state, due and burial without reading fsrs rows.
CREATE INDEX fsrs_queue ON fsrs (state, due, buried_until) WHERE suspended = 0;

-- Orphaned cards (their source is gone), few, subtracted from those counts.
CREATE INDEX cards_orphaned ON cards (id) WHERE orphan = 1;
