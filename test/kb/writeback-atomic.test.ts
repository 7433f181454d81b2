import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileChangedError, OutsideKnowledgeBaseError, writeFileAtomic } from '../../src/kb/atomic-write.ts';
import { put, tempKb } from './parse-fixtures.ts';

function expectFor(abs: string) {
  const stats = statSync(abs);
  return { size: stats.size, mtimeMs: stats.mtimeMs, sha256: createHash('sha256').update(readFileSync(abs)).digest('hex') };
}

describe('writeFileAtomic', () => {
  it('replaces the file, keeps its mode and leaves no temp file', () => {
    const root = tempKb();
    const abs = put(root, 'notes/a.md', 'old');
    chmodSync(abs, 0o640);
    const stamp = writeFileAtomic(root, abs, 'new', expectFor(abs));
    expect(readFileSync(abs, 'utf8')).toBe('new');
    expect(statSync(abs).mode & 0o777).toBe(0o640);
    expect(readdirSync(join(root, 'notes'))).toEqual(['a.md']);
    // The stamp returned is the one a scan then reads (the temp file's mtime, kept by the rename).
    expect(stamp).toMatchObject({ size: 3, mtimeMs: statSync(abs).mtimeMs });
  });

  it('keeps a mode the umask would take bits off (group- and world-writable)', () => {
    const root = tempKb();
    const abs = put(root, 'notes/a.md', 'old');
    chmodSync(abs, 0o666);
    const umask = process.umask(0o022);
    try {
      writeFileAtomic(root, abs, 'new', expectFor(abs));
    } finally {
      process.umask(umask);
    }
    expect(statSync(abs).mode & 0o777).toBe(0o666);
  });

  it('accepts the expected content as text (ignoring a BOM it was read without) and keeps the BOM', () => {
    const root = tempKb();
    const abs = put(root, 'notes/a.md', '\uFEFFold');
    writeFileAtomic(root, abs, 'new', 'old');
    expect(readFileSync(abs)).toEqual(Buffer.from('\uFEFFnew'));
  });

  it('refuses when the file changed since it was read', () => {
    const root = tempKb();
    const abs = put(root, 'notes/a.md', 'old');
    const seen = expectFor(abs);
    writeFileSync(abs, 'edited by the user');
    expect(() => writeFileAtomic(root, abs, 'new', seen)).toThrow(FileChangedError);
    expect(() => writeFileAtomic(root, abs, 'new', 'old')).toThrow(FileChangedError);
    // Same size, same mtime, other bytes: only the hash can tell.
    writeFileSync(abs, 'abc');
    const stats = statSync(abs);
    writeFileSync(abs, 'xyz');
    utimesSync(abs, stats.atime, stats.mtime);
    expect(() => writeFileAtomic(root, abs, 'new', { size: 3, mtimeMs: stats.mtimeMs, sha256: createHash('sha256').update('abc').digest('hex') })).toThrow(FileChangedError);
    expect(readFileSync(abs, 'utf8')).toBe('xyz');
  });

  it('refuses a file that disappeared', () => {
    const root = tempKb();
    expect(() => writeFileAtomic(root, join(root, 'notes-missing.md'), 'x', { size: 1, mtimeMs: 0 })).toThrow(FileChangedError);
  });

  it('never writes through a symbolic link, even one inside the knowledge base', () => {
    const root = tempKb();
    const real = put(root, 'notes/real.md', 'real');
    const link = join(root, 'notes/link.md');
    symlinkSync(real, link);
    expect(() => writeFileAtomic(root, link, 'x')).toThrow(OutsideKnowledgeBaseError);
    expect(readFileSync(real, 'utf8')).toBe('real');
  });

  it('refuses paths outside the knowledge base, also through a linked folder', () => {
    const root = tempKb();
    const outside = tempKb();
    const victim = put(outside, 'victim.md', 'safe');
    mkdirSync(join(root, 'notes'), { recursive: true });
    symlinkSync(outside, join(root, 'notes/elsewhere'));
    expect(() => writeFileAtomic(root, join(root, 'notes/elsewhere/victim.md'), 'x')).toThrow(OutsideKnowledgeBaseError);
    expect(() => writeFileAtomic(root, join(root, '../escape.md'), 'x')).toThrow(OutsideKnowledgeBaseError);
    expect(() => writeFileAtomic(root, victim, 'x')).toThrow(OutsideKnowledgeBaseError);
    expect(readFileSync(victim, 'utf8')).toBe('safe');
  });

  it('creates a new file when nothing was expected', () => {
    const root = tempKb();
    mkdirSync(join(root, 'notes'));
    writeFileAtomic(root, join(root, 'notes/new.md'), Buffer.from('fresh'));
    expect(readFileSync(join(root, 'notes/new.md'), 'utf8')).toBe('fresh');
  });
});
