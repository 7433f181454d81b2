import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase, type ScanOptions } from '../../src/app/scan/scan-kb.ts';
import { openDatabase, type KbDatabase } from '../../src/store/db.ts';
import { tempDir, writeKb } from '../helpers/kb-cli.ts';
import { cardsFile, fingerprint, note } from '../e2e/scan-fixtures.ts';
import { CHANGED_WHILE_SCANNED } from '../../src/kb/scan-file.ts';

function open(root: string): KbDatabase {
  return openDatabase(join(tempDir('kb-scan-db-'), 'kb.db'));
}

const scan = (root: string, db: KbDatabase, options: ScanOptions & { writable?: boolean } = {}) =>
  scanKnowledgeBase({ root, db, writable: options.writable ?? true, config: defaultConfig }, options);

const dump = (db: KbDatabase) => ({
  cards: db.prepare('SELECT id, kind, path, line, deck, front, back, tags, lab, content_hash, id_in_file, orphan FROM cards ORDER BY id').all(),
  fsrs: db.prepare('SELECT card_id, stability, difficulty, state, reps, last_review FROM fsrs ORDER BY card_id').all(),
  files: db.prepare('SELECT path, size, sha256 FROM files ORDER BY path').all(),
});

const totalChanges = (db: KbDatabase) => db.prepare('SELECT total_changes()').pluck().get();

describe('scanKnowledgeBase', () => {
  it('gives the same database on worker threads as on the main thread', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 120; i++) {
      const id = `n${String(i).padStart(11, '0')}`;
      files[`notes/t${i % 3}/${i}.md`] = note(`问题 ${i}`, { id, extra: i % 7 === 0 ? 'lab: ttft' : undefined });
    }
    files['notes/bad.md'] = '---\nkey: [broken\n---\n# Bad\n';
    const root = writeKb(files);
    writeFileSync(join(root, 'lab/ttft.md'), '# TTFT lab\n');
    const inline = open(root);
    const pooled = open(root);
    const a = await scan(root, inline, { now: 1000 });
    const b = await scan(root, pooled, { now: 1000, workersOnly: true });
    const c = await scan(root, open(root), { now: 1000, workersFrom: 0 });
    expect(c).toEqual(a);
    expect(b).toEqual(a);
    expect(a.cards.added).toBe(120);
    expect(a.errors).toHaveLength(1);
    expect(dump(pooled)).toEqual(dump(inline));
  });

  it('changes nothing, not even a row, when nothing changed', async () => {
    const root = writeKb({ 'notes/a.md': note('A'), 'cards/deck.md': cardsFile });
    const db = open(root);
    await scan(root, db);
    const files = fingerprint(root);
    const changes = totalChanges(db);
    const again = await scan(root, db);
    expect(again.cards).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 3 });
    expect(totalChanges(db)).toBe(changes);
    expect(fingerprint(root)).toEqual(files);
  });

  it('derives ids for a read-only knowledge base, and --write-ids writes those same ids', async () => {
    const root = writeKb({ 'notes/a.md': note('A'), 'cards/deck.md': cardsFile });
    const before = fingerprint(root);
    const db = open(root);
    const first = await scan(root, db, { writable: false });
    expect(first.idsWritten).toEqual([]);
    expect(fingerprint(root)).toEqual(before);
    const derived = db.prepare('SELECT id FROM cards WHERE id_in_file = 0 ORDER BY id').pluck().all();
    expect(derived).toHaveLength(3);

    // Derivation is stable: a fresh database derives the same ids.
    const other = open(root);
    await scan(root, other, { writable: false });
    expect(other.prepare('SELECT id FROM cards ORDER BY id').pluck().all()).toEqual(derived);

    const written = await scan(root, db, { writable: false, writeIds: true });
    expect(written.idsWritten).toHaveLength(2);
    expect(written.cards).toMatchObject({ added: 0, changed: 0, total: 3 });
    expect(db.prepare('SELECT id FROM cards WHERE id_in_file = 1 ORDER BY id').pluck().all()).toEqual(derived);
    for (const id of derived) expect(readFileSync(join(root, 'notes/a.md'), 'utf8') + readFileSync(join(root, 'cards/deck.md'), 'utf8')).toContain(id as string);
  });

  it('seeds the schedule from the frontmatter until the first review in kb', async () => {
    const reviewed = note('R', { id: 'rrrrrrrrrrrr' })
      .replace('last_reviewed: null', "last_reviewed: '2025-10-01'")
      .replace("next_review: '2025-10-19'", "next_review: '2025-10-11'")
      .replace('review_count: 0', 'review_count: 2')
      .replace('difficulty: medium', 'difficulty: hard');
    const root = writeKb({ 'notes/r.md': reviewed });
    const db = open(root);
    await scan(root, db);
    const row = () => db.prepare("SELECT state, reps, difficulty, round(stability) AS stability FROM fsrs WHERE card_id = 'rrrrrrrrrrrr'").get();
    expect(row()).toEqual({ state: 2, reps: 2, difficulty: 7, stability: 10 });

    // Edited frontmatter, no review yet: the seed follows.
    writeFileSync(join(root, 'notes/r.md'), reviewed.replace('difficulty: hard', 'difficulty: easy'));
    await scan(root, db);
    expect(row()).toMatchObject({ difficulty: 3 });

    // After a review in kb the database is the truth.
    db.prepare(
      `INSERT INTO review_log (uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id)
       VALUES ('u', 'rrrrrrrrrrrr', 3, 1, 1, '{}', '{}', 'd')`,
    ).run();
    writeFileSync(join(root, 'notes/r.md'), reviewed.replace('difficulty: hard', 'difficulty: medium'));
    await scan(root, db);
    expect(row()).toMatchObject({ difficulty: 3 });
  });

  it('keeps the cards of a file that turned malformed, and picks it up once fixed', async () => {
    const root = writeKb({ 'notes/a.md': note('A', { id: 'aaaaaaaaaaaa' }) });
    const db = open(root);
    await scan(root, db);
    const good = readFileSync(join(root, 'notes/a.md'), 'utf8');
    writeFileSync(join(root, 'notes/a.md'), good.replace('difficulty: medium', 'difficulty: [oops'));
    const broken = await scan(root, db);
    expect(broken.errors).toEqual([expect.objectContaining({ file: 'notes/a.md', line: expect.any(Number) })]);
    expect(broken.cards).toMatchObject({ removed: 0, total: 1 });
    expect((await scan(root, db)).errors).toHaveLength(1);
    writeFileSync(join(root, 'notes/a.md'), good.replace('A 的答案。', 'A 的新答案。'));
    const fixed = await scan(root, db);
    expect(fixed.errors).toEqual([]);
    expect(fixed.cards).toMatchObject({ changed: 1, total: 1 });
  });

  it('follows a whole vault moved with its ids into a new folder structure', async () => {
    const root = writeKb({ 'notes/a.md': note('A'), 'cards/deck.md': cardsFile });
    const db = open(root);
    await scan(root, db);
    const ids = db.prepare('SELECT id FROM cards ORDER BY id').pluck().all();
    const moved = tempDir('kb-moved-');
    mkdirSync(join(moved, 'notes/sub'), { recursive: true });
    cpSync(join(root, 'notes/a.md'), join(moved, 'notes/sub/a.md'));
    cpSync(join(root, 'cards'), join(moved, 'cards'), { recursive: true });
    const report = await scan(moved, db);
    expect(report.cards).toMatchObject({ added: 0, removed: 0, total: 3 });
    expect(db.prepare('SELECT id FROM cards WHERE orphan = 0 ORDER BY id').pluck().all()).toEqual(ids);
  });

  it('redoes its transaction when an id write fails at the swap: the edited note is held, counted once, and read again next time', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`notes/t${i % 3}/${i}.md`] = note(`问题 ${i}`);
    const root = writeKb(files);
    const db = open(root);
    const edited = join(root, 'notes/t1/4.md');
    // Once every note is parsed (its ids staged in a temp file), one is edited: its swap fails.
    const report = await scan(root, db, { onProgress: (done, total) => void (done === total && writeFileSync(edited, `${readFileSync(edited, 'utf8')}\n编辑。\n`)) });
    expect(report.files).toMatchObject({ read: 30, parsed: 30 });
    expect(report.idsWritten).toHaveLength(29);
    expect(report.idsWritten.map((written) => written.file)).not.toContain('notes/t1/4.md');
    expect(report.warnings).toEqual([expect.objectContaining({ file: 'notes/t1/4.md', message: CHANGED_WHILE_SCANNED })]);
    expect(report.cards).toMatchObject({ added: 29, total: 29 });
    expect(readFileSync(edited, 'utf8')).not.toMatch(/\nid: /);
    expect(readFileSync(edited, 'utf8')).toMatch(/编辑。\n$/);
    expect(db.prepare('SELECT count(*) FROM files').pluck().get()).toBe(29);

    const again = await scan(root, db);
    expect(again.idsWritten).toEqual([{ file: 'notes/t1/4.md', count: 1 }]);
    expect(again.cards).toMatchObject({ added: 1, total: 30 });
    expect(again.warnings).toEqual([]);
  });
});
