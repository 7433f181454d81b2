// A database from before the review log files: its history is written out once as this
// device's log, and a fresh clone that has only the files replays the same schedule.
import Database from 'better-sqlite3';
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb } from '../helpers/kb-cli.ts';
import { cardIdOf, reviewKb } from './review-fixture.ts';

/** Turns the knowledge base's database back into a version-4 one (before migrations 5 and 6) with no log files. */
function makeLegacy(root: string): void {
  rmSync(join(root, 'reviews'), { recursive: true, force: true });
  const db = new Database(join(root, '.kb/kb.db'));
  db.exec("DROP TABLE review_events; DROP TABLE review_log_files; DROP TABLE replay_pending; DELETE FROM meta WHERE key = 'review_log_exported';");
  db.exec('ALTER TABLE files DROP COLUMN warnings');
  db.pragma('user_version = 4');
  db.close();
}

describe('migrating a database that predates the review log', () => {
  it('writes its ratings and actions out once, and a fresh database replays the same schedule', () => {
    const kb = reviewKb();
    const ttft = cardIdOf(kb.ttftPath);
    const tpot = cardIdOf(kb.tpotPath);
    for (const [card, rating] of [[ttft, 'good'], [tpot, 'again'], [ttft, 'hard'], [tpot, 'good']]) {
      expect(runKb(['--kb', kb.root, 'rate', card, rating]).code).toBe(0);
    }
    expect(runKb(['--kb', kb.root, 'suspend', tpot]).code).toBe(0);
    expect(runKb(['--kb', kb.root, 'forget', ttft]).code).toBe(0);
    makeLegacy(kb.root);

    const before = runKb(['--kb', kb.root, 'cards', '--json']);
    expect(before.code, before.stderr).toBe(0);
    const logs = readdirSync(join(kb.root, 'reviews'));
    expect(logs).toHaveLength(1);
    const lines = readFileSync(join(kb.root, 'reviews', logs[0]), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { kind: string; from?: unknown });
    expect(lines.map((line) => line.kind)).toEqual(['rate', 'rate', 'rate', 'rate', 'suspend', 'forget']);
    expect(lines.filter((line) => line.from !== undefined)).toHaveLength(2);
    // Opened again: nothing is written twice.
    runKb(['--kb', kb.root, 'due']);
    expect(readFileSync(join(kb.root, 'reviews', logs[0]), 'utf8').trim().split('\n')).toHaveLength(6);

    // A fresh clone (no database; the notes as they are now, fields written back; the log) replays the same schedule.
    const clone = (): unknown => {
      rmSync(join(kb.root, '.kb'), { recursive: true });
      expect(runKb(['--kb', kb.root, 'scan']).code).toBe(0);
      return JSON.parse(runKb(['--kb', kb.root, 'cards', '--json']).stdout);
    };
    const migrated = join(kb.root, '..', `${basename(kb.root)}-migrated-db`);
    cpSync(join(kb.root, '.kb'), migrated, { recursive: true });
    expect(clone()).toEqual(JSON.parse(before.stdout));
    // Undo on the migrated database is an event of the log too: the next clone replays it.
    rmSync(join(kb.root, '.kb'), { recursive: true });
    cpSync(migrated, join(kb.root, '.kb'), { recursive: true });
    expect(runKb(['--kb', kb.root, 'undo']).stdout).toContain(`undid forget on ${ttft}`);
    const undone = JSON.parse(runKb(['--kb', kb.root, 'cards', '--json']).stdout) as unknown;
    expect(undone).not.toEqual(JSON.parse(before.stdout));
    expect(clone()).toEqual(undone);
  });
});
