-- Migration (after queue-indexes.sql): new cards interleaved by deck. kb review takes new cards from each deck (or
-- note folder) in turn, each in file order, so it reads a few cards of one deck at a time:
-- this index walks one deck's cards in file order without sorting the deck.
CREATE INDEX cards_deck_order ON cards (deck, path, line, id) WHERE orphan = 0;
