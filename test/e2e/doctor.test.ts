import Database from 'better-sqlite3';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { note } from './scan-fixtures.ts';

const doctor = (root: string, ...args: string[]) => runKb(['--kb', root, 'doctor', '--json', ...args]);

/** Records a review in the database the way `kb review` would, without touching the note. */
/** A review at `reviewedAt` (three days before `due` unless given) that makes the card due at `due`. */
function recordReview(root: string, id: string, due: number, reviewedAt = due - 3 * 86_400_000): void {
  const db = new Database(join(root, '.kb/kb.db'));
  db.prepare('UPDATE fsrs SET due = ?, reps = reps + 1, state = 2, stability = 3, difficulty = 5, last_review = ? WHERE card_id = ?').run(due, reviewedAt, id);
  db.prepare(
    `INSERT INTO review_log (uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id)
     VALUES ('r1', ?, 3, ?, 4000, '{}', ?, 'test')`,
  ).run(id, reviewedAt, JSON.stringify(db.prepare('SELECT * FROM fsrs WHERE card_id = ?').get(id)));
  db.close();
}

describe('kb doctor', () => {
  it('finds nothing wrong after a clean scan', () => {
    const root = writeKb({ 'notes/a.md': note('A'), 'notes/b.md': note('B') });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const result = doctor(root);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      integrity: { ok: true },
      duplicates: [],
      missingIds: [],
      orphans: [],
      frontmatter: [],
      errors: 0,
      warnings: 0,
    });
  });

  it('reports duplicate ids (exit 1), orphans and missing ids', () => {
    const root = writeKb({ 'notes/a.md': note('A', { id: 'aaaaaaaaaaaa' }), 'notes/gone.md': note('Gone', { id: 'gggggggggggg' }) });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    rmSync(join(root, 'notes/gone.md'));
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    writeFileSync(join(root, 'notes/copy.md'), note('Copy', { id: 'aaaaaaaaaaaa' }));
    writeFileSync(join(root, 'notes/new.md'), note('New'));
    const result = doctor(root);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.duplicates).toEqual([{ id: 'aaaaaaaaaaaa', places: [{ file: 'notes/a.md', line: 1 }, { file: 'notes/copy.md', line: 1 }] }]);
    expect(report.orphans).toEqual([expect.objectContaining({ id: 'gggggggggggg', path: 'notes/gone.md' })]);
    expect(report.missingIds).toEqual([expect.objectContaining({ file: 'notes/new.md' })]);
    const text = runKb(['--kb', root, 'doctor']);
    expect(text.stdout).toMatch(/duplicate card id aaaaaaaaaaaa: notes\/a\.md:1, notes\/copy\.md:1/);
  });

  it('counts the one line on cards without an id as one warning, however many cards it names', () => {
    const root = writeKb({ 'notes/a.md': note('A', { id: 'aaaaaaaaaaaa' }) });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    for (const n of [1, 2, 3, 4, 5]) writeFileSync(join(root, `notes/new-${n}.md`), note(`New ${n}`));
    const text = runKb(['--kb', root, 'doctor']);
    expect(text.stdout).toContain('warning: 5 cards in 5 files have no id yet; run kb scan\n');
    // It said "0 errors, 5 warnings" under that one line.
    expect(text.stdout).toMatch(/\n0 errors, 1 warning\n$/);
    expect(JSON.parse(doctor(root).stdout)).toMatchObject({ warnings: 1 });
    // A read-only note: kb scan cannot write its id, so the line does not send the user there
    // (it said "run kb scan", which left it as it was), and one card reads in the singular.
    chmodSync(join(root, 'notes/new-5.md'), 0o444);
    const split = runKb(['--kb', root, 'doctor'], { env: { COLUMNS: '400' } });
    expect(split.stdout).toContain('warning: 4 cards in 4 files have no id yet; run kb scan\n');
    expect(split.stdout).toContain('warning: 1 card in 1 read-only file has no id in its file (notes/new-5.md); kb keeps ids derived from file and question, and kb scan writes them once a file is writable\n');
    expect(split.stdout).toMatch(/\n0 errors, 2 warnings\n$/);
  });

  it('names a note reached through a symbolic link, whose id kb scan never writes, instead of sending the user to kb scan (found adopting a vault with a linked folder)', () => {
    const outside = mkdtempSync(join(tmpdir(), 'kb-linked-'));
    writeFileSync(join(outside, 'goodput.md'), note('Goodput'));
    const root = writeKb({ 'notes/a.md': note('A', { id: 'aaaaaaaaaaaa' }) });
    symlinkSync(outside, join(root, 'notes/linked'));
    expect(runKb(['--kb', root, 'scan']).stderr).toContain('linked/goodput.md: card ids not written');
    const text = runKb(['--kb', root, 'doctor'], { env: { COLUMNS: '400' } });
    expect(text.stdout).toContain('warning: 1 card in 1 linked file has no id in its file (notes/linked/goodput.md); kb keeps ids derived from file and question, as it never writes through a symbolic link\n');
    expect(text.stdout).not.toContain('run kb scan');
    expect(JSON.parse(doctor(root).stdout)).toMatchObject({ warnings: 1, missingIds: [{ file: 'notes/linked/goodput.md', readOnly: false, linked: true }] });
  });

  it('finds a note whose frontmatter disagrees with the database and --fix rewrites only those fields', () => {
    const root = writeKb({ 'notes/a.md': note('A', { id: 'aaaaaaaaaaaa' }) });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const due = new Date(2030, 0, 15, 4).getTime();
    // Reviewed in the past: a last_reviewed after today is ignored when the note is read (a typo or a wrong clock).
    recordReview(root, 'aaaaaaaaaaaa', due, new Date(2025, 10, 20, 4).getTime());

    const report = JSON.parse(doctor(root).stdout);
    expect(report.frontmatter).toEqual([
      expect.objectContaining({
        id: 'aaaaaaaaaaaa',
        fixed: false,
        mismatches: expect.arrayContaining([
          { field: 'next_review', file: '2025-10-19', database: '2030-01-15' },
          { field: 'review_count', file: 0, database: 1 },
        ]),
      }),
    ]);

    const before = readFileSync(join(root, 'notes/a.md'), 'utf8');
    const fixed = JSON.parse(doctor(root, '--fix').stdout);
    expect(fixed.frontmatter[0].fixed).toBe(true);
    const after = readFileSync(join(root, 'notes/a.md'), 'utf8');
    expect(after).toContain("next_review: '2030-01-15'");
    expect(after).toMatch(/^review_count: 1$/m);
    // Everything outside the review fields is as it was.
    const strip = (text: string) => text.split('\n').filter((line) => !/^(next_review|review_count|last_reviewed|mastery_level):/.test(line)).join('\n');
    expect(strip(after)).toBe(strip(before));
    expect(JSON.parse(doctor(root).stdout).frontmatter).toEqual([]);
  });

  it('quotes a review field the note holds but kb left out with the reason, not as null (found as a user: "last_reviewed file null" beside last_reviewed: 2099-01-01)', () => {
    const root = writeKb({ 'notes/a.md': note('A', { id: 'aaaaaaaaaaaa' }) });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    recordReview(root, 'aaaaaaaaaaaa', new Date(2030, 0, 15, 4).getTime(), new Date(2025, 10, 20, 4).getTime());
    const typo = readFileSync(join(root, 'notes/a.md'), 'utf8').replace('last_reviewed: null', "last_reviewed: '2099-01-01'").replace('review_count: 0', 'review_count: lots');
    writeFileSync(join(root, 'notes/a.md'), typo);
    const report = JSON.parse(doctor(root).stdout);
    expect(report.frontmatter[0].mismatches).toEqual(
      expect.arrayContaining([
        { field: 'last_reviewed', file: null, database: '2025-11-20', notRead: expect.stringMatching(/^2099-01-01 is after today \(\d{4}-\d\d-\d\d\): no review happened then$/) },
        { field: 'review_count', file: null, database: 1, notRead: 'expected a whole number >= 0, got "lots"' },
      ]),
    );
    const text = runKb(['--kb', root, 'doctor'], { env: { COLUMNS: '400' } }).stdout;
    expect(text).toMatch(/last_reviewed file not read \(2099-01-01 is after today \([\d-]+\): no review happened then\) vs database "2025-11-20"/);
    expect(text).toContain('review_count file not read (expected a whole number >= 0, got "lots") vs database 1');
    expect(text).not.toContain('file null');
    // A field the note leaves empty is still quoted as it is.
    writeFileSync(join(root, 'notes/a.md'), typo.replace("last_reviewed: '2099-01-01'", 'last_reviewed: null'));
    expect(runKb(['--kb', root, 'doctor'], { env: { COLUMNS: '400' } }).stdout).toContain('last_reviewed file null vs database "2025-11-20"');
  });

  it("--fix never writes a card's review fields into another file carrying a copy of its id (found as a user: the copy's review_count 1 became 15)", () => {
    const root = writeKb({ 'notes/a.md': note('A', { id: 'aaaaaaaaaaaa' }), 'notes/b.md': note('B', { id: 'bbbbbbbbbbbb' }) });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    recordReview(root, 'aaaaaaaaaaaa', new Date(2030, 0, 15, 4).getTime());
    expect(runKb(['--kb', root, 'doctor', '--fix']).code).toBe(0);
    // b.md is given a's id by hand (a slip of copy and paste); its own fields stay its own.
    const copy = readFileSync(join(root, 'notes/b.md'), 'utf8').replace('id: bbbbbbbbbbbb', 'id: aaaaaaaaaaaa');
    writeFileSync(join(root, 'notes/b.md'), copy);
    const fixed = doctor(root, '--fix');
    expect(fixed.code).toBe(1);
    const report = JSON.parse(fixed.stdout);
    expect(report.duplicates).toEqual([{ id: 'aaaaaaaaaaaa', places: [{ file: 'notes/a.md', line: 1 }, { file: 'notes/b.md', line: 1 }] }]);
    expect(report.frontmatter).toEqual([]);
    expect(readFileSync(join(root, 'notes/b.md'), 'utf8')).toBe(copy);
  });

  it('a file kb scan skips for an error is an error for kb doctor too (it was a warning, exit 0)', () => {
    const root = writeKb({ 'notes/good.md': '# Fine?\n\n## Answer\n\nYes.\n', 'notes/bad.md': '---\nid: 12345\n---\n# Bad id?\n\n## Answer\n\nNo.\n' });
    const scan = runKb(['--kb', root, 'scan']);
    expect(scan.code).toBe(1);
    expect(scan.stdout + scan.stderr).toMatch(/error: notes\/bad\.md:2: id:/);
    const doctor = runKb(['--kb', root, 'doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^error: notes\/bad\.md:2: id:/m);
    expect(doctor.stdout).toMatch(/^1 error, \d+ warnings?$/m);
  });

  it('names a database file that is not a database, and says how to rebuild it (it said nothing of what to do)', () => {
    const root = writeKb({ 'notes/a.md': note('A') });
    mkdirSync(join(root, '.kb'));
    const db = join(root, '.kb/kb.db');
    writeFileSync(db, 'not a database, just text that is long enough to have a header page'.repeat(4));
    const result = runKb(['--kb', root, 'doctor']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `kb: database ${db}: file is not a database; it is a cache of the notes and review logs: move it aside (mv ${db} ${db}.broken) and the next kb command rebuilds it (lab runs and quiz answers lived only in it)\n`,
    );
    // A fault of the machine: KB_DEBUG=1 adds SQLite's trace under the line, as the README says (it added none).
    const debug = runKb(['--kb', root, 'doctor'], { env: { KB_DEBUG: '1' } });
    expect(debug.stderr.startsWith(result.stderr)).toBe(true);
    expect(debug.stderr).toMatch(/^SqliteError: file is not a database\n\s+at /m);
    // Done as it says, the next command rebuilds it from the notes.
    renameSync(db, `${db}.broken`);
    expect(runKb(['--kb', root, 'doctor']).code).toBe(0);
  });
});
