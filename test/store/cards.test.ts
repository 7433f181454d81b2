import { describe, expect, it } from 'vitest';
import { cardQueries, type CardContent } from '../../src/store/card-rows.ts';
import { openDatabase } from '../../src/store/db.ts';
import { fileQueries } from '../../src/store/file-stamps.ts';
import { fsrsQueries } from '../../src/store/review-writes.ts';

const card = (id: string, fields: Partial<CardContent> = {}): CardContent => ({
  id,
  kind: 'card',
  path: 'cards/metrics.md',
  line: 4,
  deck: 'metrics',
  front: 'What is TTFT?',
  back: 'Time to first token.',
  full: 'Time to first token.',
  tags: ['metrics'],
  lab: null,
  calc: null,
  contentHash: 'h1',
  fileSize: 100,
  fileMtimeMs: 5,
  idInFile: true,
  ...fields,
});

describe('card queries', () => {
  it('inserts, finds, updates and lists cards with their JSON fields', () => {
    const db = openDatabase(':memory:');
    const cards = cardQueries(db);
    const calc = { vars: [{ name: 'n', kind: 'choose' as const, values: [1, 2] }], answer: 'n * 2', unit: 'ms', tolerance: { kind: 'rel' as const, value: 0.01 }, explain: null, line: 7 };
    cards.insert(card('a'), 10);
    cards.insert(card('b', { line: 9, calc, lab: 'ttft', deck: 'other' }), 10);
    expect(cards.find('b')).toMatchObject({ calc, lab: 'ttft', tags: ['metrics'], orphan: false, idInFile: true, createdAt: 10 });
    expect(cards.find('missing')).toBeNull();

    cards.update(card('a', { front: 'TTFT?', contentHash: 'h2' }), 20);
    expect(cards.find('a')).toMatchObject({ front: 'TTFT?', createdAt: 10, updatedAt: 20 });
    expect(cards.list().map((c) => c.id)).toEqual(['a', 'b']);
    expect(cards.list({ deck: 'other' }).map((c) => c.id)).toEqual(['b']);
    expect(cards.labLinks()).toEqual([{ id: 'b', path: 'cards/metrics.md', line: 9, lab: 'ttft' }]);
  });

  it('keeps an orphan out of the live lists, and brings it back on update', () => {
    const db = openDatabase(':memory:');
    const cards = cardQueries(db);
    cards.insert(card('a'), 1);
    expect(cards.markOrphan('a', 2)).toBe(true);
    expect(cards.markOrphan('a', 3)).toBe(false);
    expect(cards.list()).toEqual([]);
    expect(cards.list({ includeOrphans: true })).toHaveLength(1);
    expect(cards.orphanCount()).toBe(1);
    expect(cards.livePaths()).toEqual([]);
    cards.update(card('a', { path: 'cards/new.md' }), 4);
    expect(cards.find('a')).toMatchObject({ orphan: false, path: 'cards/new.md' });
    expect(cards.liveIdsIn('cards/new.md')).toEqual(['a']);
  });
});

describe('fsrs and file queries', () => {
  it('writes and reads a memory state, keeping suspend flags', () => {
    const db = openDatabase(':memory:');
    cardQueries(db).insert(card('a'), 1);
    const fsrs = fsrsQueries(db);
    const state = { due: 5, stability: 2.5, difficulty: 5, elapsedDays: 0, scheduledDays: 2, learningSteps: 0, reps: 1, lapses: 0, state: 2 as const, lastReview: 1 };
    fsrs.write('a', state);
    db.prepare("UPDATE fsrs SET suspended = 1 WHERE card_id = 'a'").run();
    fsrs.write('a', { ...state, due: 9 });
    expect(fsrs.get('a')).toEqual({ ...state, due: 9 });
    expect(fsrs.row('a')).toMatchObject({ due: 9, suspended: 1, buried_until: null });
    expect(fsrs.hasReviews('a')).toBe(false);
  });

  it('records files by path', () => {
    const db = openDatabase(':memory:');
    const files = fileQueries(db);
    files.upsert({ path: 'notes/a.md', size: 1, mtimeMs: 2, sha256: 'x', scannedAt: 3 });
    files.upsert({ path: 'notes/a.md', size: 4, mtimeMs: 5, sha256: 'y', scannedAt: 6 });
    expect([...files.all().values()]).toEqual([{ path: 'notes/a.md', size: 4, mtimeMs: 5, sha256: 'y', scannedAt: 6, warnings: null }]);
    // Warnings are kept apart from the stamp: an upsert leaves them as they are.
    files.setWarnings('notes/a.md', '[{"severity":"warning"}]');
    files.upsert({ path: 'notes/a.md', size: 7, mtimeMs: 8, sha256: 'z', scannedAt: 9 });
    expect(files.all().get('notes/a.md')?.warnings).toBe('[{"severity":"warning"}]');
    files.remove('notes/a.md');
    expect(files.all().size).toBe(0);
  });
});
