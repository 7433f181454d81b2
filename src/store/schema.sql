-- kb's whole data model. SQLite holds the truth (schedule and history); the Markdown files
-- hold the content and mirror a note's review fields in its frontmatter.
-- Times are integers: milliseconds since the Unix epoch, UTC. JSON columns are TEXT checked
-- with json_valid. Migration 1 of src/store/db.ts; later changes are new migrations.

-- Small settings of this database: device_id (who wrote a review), created_at.
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

-- One row per source file kb has scanned cleanly; lets `kb scan` skip unchanged files by
-- size and mtime, then by content hash. A file whose parse had errors gets no row, so the
-- next scan reads it again and reports the error again.
CREATE TABLE files (
  path       TEXT PRIMARY KEY,             -- relative to the knowledge-base root, '/' separators
  size       INTEGER NOT NULL,
  mtime_ms   INTEGER NOT NULL,
  sha256     TEXT NOT NULL,
  scanned_at INTEGER NOT NULL
) STRICT;

-- One row per card: a note (one file, one card) or a `##` card of a cards file. The id is
-- stored in the file, so renaming or moving a file keeps the row. A card whose source is
-- gone stays as an orphan (orphan = 1) with its schedule and history.
CREATE TABLE cards (
  id            TEXT PRIMARY KEY,
  kind          TEXT NOT NULL CHECK (kind IN ('note', 'card')),
  path          TEXT NOT NULL,
  line          INTEGER NOT NULL CHECK (line >= 1),
  deck          TEXT NOT NULL,
  front         TEXT NOT NULL,
  back          TEXT NOT NULL,
  full          TEXT NOT NULL,
  tags          TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),   -- JSON array of strings
  lab           TEXT,                                                  -- a lab/<name>.md name
  calc          TEXT CHECK (calc IS NULL OR json_valid(calc)),          -- CalcSpec as JSON
  content_hash  TEXT NOT NULL,
  file_size     INTEGER NOT NULL,
  file_mtime_ms INTEGER NOT NULL,
  -- 0 when the id is only derived (bundled knowledge base, read-only, id not yet in the file).
  id_in_file    INTEGER NOT NULL DEFAULT 1 CHECK (id_in_file IN (0, 1)),
  orphan        INTEGER NOT NULL DEFAULT 0 CHECK (orphan IN (0, 1)),
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX cards_by_path ON cards (path);
CREATE INDEX cards_by_deck ON cards (deck) WHERE orphan = 0;

-- The FSRS memory state of each card (ts-fsrs Card fields). Created with the card; seeded
-- from a note's frontmatter until the card's first review in kb.
CREATE TABLE fsrs (
  card_id        TEXT PRIMARY KEY REFERENCES cards (id) ON DELETE CASCADE,
  due            INTEGER NOT NULL,
  stability      REAL NOT NULL,
  difficulty     REAL NOT NULL,
  elapsed_days   INTEGER NOT NULL DEFAULT 0,
  scheduled_days INTEGER NOT NULL DEFAULT 0,
  learning_steps INTEGER NOT NULL DEFAULT 0,
  reps           INTEGER NOT NULL DEFAULT 0,
  lapses         INTEGER NOT NULL DEFAULT 0,
  state          INTEGER NOT NULL DEFAULT 0 CHECK (state IN (0, 1, 2, 3)), -- new, learning, review, relearning
  last_review    INTEGER,
  suspended      INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
  buried_until   INTEGER
) STRICT;
CREATE INDEX fsrs_by_due ON fsrs (due) WHERE suspended = 0;

-- Every rating that stands. Undo deletes the row (in the same transaction that restores
-- the card's state from state_before), so the log never holds ratings the user took back.
CREATE TABLE review_log (
  uuid         TEXT PRIMARY KEY,
  card_id      TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
  rating       INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),   -- again, hard, good, easy
  reviewed_at  INTEGER NOT NULL,
  duration_ms  INTEGER NOT NULL CHECK (duration_ms >= 0),
  state_before TEXT NOT NULL CHECK (json_valid(state_before)),    -- fsrs row before the rating
  state_after  TEXT NOT NULL CHECK (json_valid(state_after)),
  device_id    TEXT NOT NULL
) STRICT;
CREATE INDEX review_log_by_card ON review_log (card_id, reviewed_at);
CREATE INDEX review_log_by_time ON review_log (reviewed_at);

-- One answer in a `kb quiz` session. For a kb-calc card: the drawn variables, the expected
-- number and what was typed; for a plain card expected and answered may be NULL.
CREATE TABLE quiz_results (
  id          INTEGER PRIMARY KEY,
  session_id  TEXT NOT NULL,
  card_id     TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
  asked_at    INTEGER NOT NULL,
  vars        TEXT CHECK (vars IS NULL OR json_valid(vars)),   -- {name: drawn value}
  expected    REAL,
  answered    TEXT,
  correct     INTEGER NOT NULL CHECK (correct IN (0, 1)),
  duration_ms INTEGER NOT NULL CHECK (duration_ms >= 0)
) STRICT;
CREATE INDEX quiz_results_by_session ON quiz_results (session_id);
CREATE INDEX quiz_results_by_card ON quiz_results (card_id, asked_at);

-- One `kb lab <name>` run: the settings it ran with and the measured result.
CREATE TABLE lab_runs (
  id          INTEGER PRIMARY KEY,
  lab         TEXT NOT NULL,
  started_at  INTEGER NOT NULL,
  finished_at INTEGER,
  status      TEXT NOT NULL CHECK (status IN ('ok', 'partial', 'failed')),
  settings    TEXT NOT NULL CHECK (json_valid(settings)),
  result      TEXT CHECK (result IS NULL OR json_valid(result)),
  backend     TEXT NOT NULL,
  device      TEXT
) STRICT;
CREATE INDEX lab_runs_by_lab ON lab_runs (lab, started_at);
