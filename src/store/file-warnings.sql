-- Migration 6: the warnings of each file as its last parse gave them (JSON, or NULL for none).
-- A scan reads only the files that changed: an unchanged file's warnings come from here, so
-- kb scan keeps saying them until the file is fixed (they went silent after the first scan).
ALTER TABLE files ADD COLUMN warnings TEXT;
