// A write-back that leaves its note as it was (a clone's first open asks it of every reviewed
// note, whose fields are already right) reads the note without hashing it: the hash is the
// stamp a write or a restore checks the file against, and no write follows.
import { readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { commitWriteback, prepareWriteback, type PreparedWriteback } from '../../src/kb/writeback.ts';
import type { KbPath } from '../../src/model/knowledge-base.ts';
import { put, tempKb } from './parse-fixtures.ts';

const hashed = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return {
    ...actual,
    createHash: (...args: Parameters<typeof actual.createHash>) => {
      hashed.count++;
      return actual.createHash(...args);
    },
  };
});

beforeEach(() => (hashed.count = 0));

const FIELDS = { last_reviewed: '2025-11-02', next_review: '2025-11-09', review_count: 1, mastery_level: 0.9 };
const NOTE = "---\nid: card-1\ncreated: '2025-10-01'\nlast_reviewed: '2025-11-02'\nnext_review: '2025-11-09'\nreview_count: 1\nmastery_level: 0.9\n---\n# Question?\n\nYes.\n";

describe('prepareWriteback on a note that already holds its fields', () => {
  it('says unchanged without hashing the note', () => {
    const root = tempKb();
    const path = 'notes/q.md' as KbPath;
    put(root, path, NOTE);
    expect(prepareWriteback(root, path, 'card-1', FIELDS)).toEqual({ status: 'unchanged' });
    expect(hashed.count).toBe(0);
  });

  it('still checks a note it writes against the bytes it read (their hash, taken at the write)', () => {
    const root = tempKb();
    const path = 'notes/q.md' as KbPath;
    const abs = put(root, path, NOTE);
    const { mtime } = statSync(abs);
    const prepared = prepareWriteback(root, path, 'card-1', { ...FIELDS, review_count: 2 }) as PreparedWriteback;
    // Same size, same mtime: only the hash tells the edit.
    put(root, path, NOTE.replace('Yes.', 'Yez.'));
    utimesSync(abs, mtime, mtime);
    expect(commitWriteback(root, prepared)).toMatchObject({ status: 'refused', changed: true });
    expect(readFileSync(join(root, path), 'utf8')).toContain('Yez.');
  });
});
