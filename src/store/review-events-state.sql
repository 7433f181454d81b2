-- Migration 8: an imported rating's state before the review as its file said it (the revlog
-- CSV's review_state: 0 new, 1 learning, 2 review, 3 relearning; the log line's `state`), NULL
-- for kb's own ratings, whose state before is review_log.state_before. A replay starts such a
-- card from what kb knows of it, which is new when kb knew nothing: so kb optimize reads this,
-- to leave out a card whose history starts mid-life (its first review made in review), as
-- fsrs-rs does, rather than fit FSRS's first stabilities to it as a new card's first rating.
ALTER TABLE review_events ADD COLUMN source_state INTEGER CHECK (source_state IS NULL OR source_state BETWEEN 0 AND 3);
