// kb review open while the knowledge base is edited in another editor. A note whose answer was
// changed outside showed the answer of the last scan (the edit was only seen at the next
// launch), and a note deleted outside was shown and rated all the same, its rating stored for a
// card no file holds ("moved or deleted since kb read it"): only a deletion made with e was
// skipped. The run now tells a changed file by one stat when a card comes up or is revealed
// (fileChanged), reads it again (readAgain: a scan, which parses only what changed), and skips a
// card whose file is gone, broken or without it, saying so; a moved note is found where it went.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { openDatabase, type KbDatabase } from '../../src/store/db.ts';
import { ReviewRun } from '../../src/app/review/review-run.ts';
import { ReviewService } from '../../src/app/review/review-service.ts';
import type { ScreenNext } from '../../src/app/review/screen-contract.ts';
import { tempDir } from '../helpers/kb-cli.ts';
import { FakeLabs } from '../ui/fake-labs.ts';

// Local 06:00: far from the 04:00 day start, so a test stays in one review day.
const START = new Date(2026, 2, 10, 6).getTime();

const note = (id: string, question: string, answer: string) => `---\nid: ${id}\ntags: [t]\n---\n# ${question}\n\n## Answer\n\n${answer}\n`;

interface Fixture {
  root: string;
  db: KbDatabase;
  run: ReviewRun;
  /** How many scans the run asked for (kb review's rescan). */
  scans: () => number;
  path: (name: string) => string;
}

/** Three notes, a, b and c (ids aaaa…, bbbb…, cccc…), scanned; a run whose rescan is a real scan, counted. */
async function fixture(): Promise<Fixture> {
  const root = tempDir('kb-outside-');
  mkdirSync(join(root, 'notes'), { recursive: true });
  for (const name of ['a', 'b', 'c']) writeFileSync(join(root, `notes/${name}.md`), note(name.repeat(12), `Question ${name}?`, `Old answer ${name}.`));
  const db = openDatabase(':memory:');
  const target = { root, db, writable: true, config: defaultConfig };
  await scanKnowledgeBase(target, { now: START - 60_000 });
  let scans = 0;
  const rescan = async () => {
    scans++;
    return (await scanKnowledgeBase(target)).errors;
  };
  const run = new ReviewRun(new ReviewService(target), root, {}, { rescan, editor: 'vi', writable: true, startedAt: START, labs: new FakeLabs() });
  return { root, db, run, scans: () => scans, path: (name) => join(root, `notes/${name}.md`) };
}

function shown(next: ScreenNext) {
  if (next.kind !== 'card') throw new Error(`no card: ${next.kind}`);
  return next.card;
}

const ratingsOf = (db: KbDatabase, id: string) => (db.prepare('SELECT count(*) AS n FROM review_log WHERE card_id = ?').get(id) as { n: number }).n;

describe('kb review while the knowledge base is edited in another editor', () => {
  it('tells a file unchanged by one stat, without a scan, also after its own write-back', async () => {
    const { run, scans } = await fixture();
    const card = shown(run.next(START));
    expect(run.fileChanged(card.id)).toBe(false);
    expect(await run.readAgain(card.id)).toEqual({ message: null });
    run.rate(card.id, 3, START + 1_000, 1_000);
    // The rating rewrote the note's review fields: kb's own write, not an outside edit.
    expect(run.fileChanged(card.id)).toBe(false);
    expect(scans()).toBe(0);
  });

  it('shows the answer the file has now when it was changed outside after the card came up; the rating keeps the edit', async () => {
    const { db, run, scans, path } = await fixture();
    const card = shown(run.next(START));
    expect(card.back).toContain('Old answer a.');
    writeFileSync(path('a'), note('a'.repeat(12), 'Question a, reworded?', 'New answer a, written outside kb.'));
    expect(run.fileChanged(card.id)).toBe(true);
    expect(await run.readAgain(card.id)).toEqual({ message: null });
    expect(scans()).toBe(1);
    expect(run.fileChanged(card.id)).toBe(false);
    const again = shown(run.next(START + 1_000));
    expect(again.id).toBe(card.id);
    expect(again.front).toContain('Question a, reworded?');
    expect(again.back).toContain('New answer a, written outside kb.');
    expect(again.back).not.toContain('Old answer');
    expect(run.rate(card.id, 3, START + 2_000, 1_000).message).toBeNull();
    expect(ratingsOf(db, card.id)).toBe(1);
    expect(readFileSync(path('a'), 'utf8')).toContain('New answer a, written outside kb.');
    expect(readFileSync(path('a'), 'utf8')).toContain('review_count: 1');
  });

  it('skips a queued note deleted outside when it comes up, naming its file, and stores no rating for it', async () => {
    const { db, run, path } = await fixture();
    const first = shown(run.next(START));
    expect(first.id).toBe('a'.repeat(12));
    rmSync(path('c'));
    run.rate(first.id, 3, START + 1_000, 1_000);
    const second = shown(run.next(START + 2_000));
    expect(second.id).toBe('b'.repeat(12));
    run.rate(second.id, 3, START + 3_000, 1_000);
    // c comes up: its file is gone.
    const third = shown(run.next(START + 4_000));
    expect(third.id).toBe('c'.repeat(12));
    expect(run.fileChanged(third.id)).toBe(true);
    expect(await run.readAgain(third.id)).toEqual({ message: 'skipped: notes/c.md was deleted outside kb (or moved out of the knowledge base)' });
    const after = run.next(START + 5_000);
    expect(after.kind === 'card' ? after.card.id : after.kind).not.toBe('c'.repeat(12));
    expect(ratingsOf(db, 'c'.repeat(12))).toBe(0);
  });

  it('names a deleted note another card\'s scan already found gone, when it comes up', async () => {
    const { run, path } = await fixture();
    const first = shown(run.next(START));
    rmSync(path('c'));
    writeFileSync(path('a'), note('a'.repeat(12), 'Question a?', 'Edited.'));
    // a's scan finds c gone too: c is an orphan before it comes up.
    expect((await run.readAgain(first.id)).message).toBeNull();
    run.rate(first.id, 3, START + 1_000, 1_000);
    run.rate(shown(run.next(START + 2_000)).id, 3, START + 3_000, 1_000);
    const next = run.next(START + 4_000);
    expect(next.notice).toBe('skipped: notes/c.md was deleted outside kb (or moved out of the knowledge base)');
    expect(next.kind === 'card' ? next.card.id : next.kind).not.toBe('c'.repeat(12));
  });

  it('does not rate a note deleted after it was shown, and skips it when it comes up again', async () => {
    const { db, run, path } = await fixture();
    const card = shown(run.next(START));
    rmSync(path('a'));
    expect(run.rate(card.id, 3, START + 1_000, 1_000).message).toBe('not rated: notes/a.md was moved or deleted since shown');
    expect(ratingsOf(db, card.id)).toBe(0);
    // The screen goes on to the next card, which is this one still: read again, it is skipped.
    expect(shown(run.next(START + 2_000)).id).toBe(card.id);
    expect((await run.readAgain(card.id)).message).toBe('skipped: notes/a.md was deleted outside kb (or moved out of the knowledge base)');
    expect(shown(run.next(START + 3_000)).id).toBe('b'.repeat(12));
    expect(ratingsOf(db, card.id)).toBe(0);
  });

  it('finds a note moved outside where it went (it keeps its id), and rates it there', async () => {
    const { db, root, run, path } = await fixture();
    const card = shown(run.next(START));
    mkdirSync(join(root, 'notes/sub'));
    renameSync(path('a'), join(root, 'notes/sub/a2.md'));
    expect(run.rate(card.id, 3, START + 1_000, 1_000).message).toBe('not rated: notes/a.md was moved or deleted since shown');
    const again = shown(run.next(START + 2_000));
    expect(again.id).toBe(card.id);
    expect(await run.readAgain(card.id)).toEqual({ message: null });
    const moved = shown(run.next(START + 3_000));
    expect(moved).toMatchObject({ id: card.id, path: 'notes/sub/a2.md' });
    expect(run.rate(card.id, 3, START + 4_000, 1_000).message).toBeNull();
    expect(ratingsOf(db, card.id)).toBe(1);
    expect(readFileSync(join(root, 'notes/sub/a2.md'), 'utf8')).toContain('review_count: 1');
    expect(existsSync(path('a'))).toBe(false);
  });

  it('skips a card taken out of its file outside kb', async () => {
    const { run, path } = await fixture();
    const card = shown(run.next(START));
    // The note's id line deleted: the file is another card now.
    writeFileSync(path('a'), '---\ntags: [t]\n---\n# Another question?\n\n## Answer\n\nOther.\n');
    expect((await run.readAgain(card.id)).message).toBe('skipped: this card is no longer in notes/a.md (changed outside kb)');
    expect(shown(run.next(START + 1_000)).id).not.toBe(card.id);
  });

  it('skips a card whose file no longer parses, saying why, until the file is mended', async () => {
    const { run, path, scans } = await fixture();
    const card = shown(run.next(START));
    writeFileSync(path('a'), '---\nid: aaaaaaaaaaaa\ntags: [t\n---\n# Question a?\n');
    expect((await run.readAgain(card.id)).message).toMatch(/^skipped: notes\/a\.md changed outside kb and no longer reads \(line \d+: .+\)$/);
    // Today's queue read again (the session ran out) brings it back from the database: still skipped, in silence, with no scan.
    const b = shown(run.next(START + 1_000));
    run.rate(b.id, 4, START + 2_000, 1_000);
    const c = shown(run.next(START + 3_000));
    run.rate(c.id, 4, START + 4_000, 1_000);
    const done = run.next(START + 5_000);
    expect(done.kind === 'card' ? done.card.id : done.kind).not.toBe(card.id);
    expect(done.notice).toBeUndefined();
    expect(scans()).toBe(1);
  });
});
