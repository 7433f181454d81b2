// Item 19 of issue #13: an outside edit landing between write-back's last check and its
// rename must not be lost. The hook runs exactly in that window, as a busy writer would.
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closeStaged, FileChangedError, OutsideKnowledgeBaseError, stageWrite, swapIn, writeFileAtomic } from '../../src/kb/atomic-write.ts';
import { put, tempKb } from './parse-fixtures.ts';

function stampOf(abs: string) {
  const stats = statSync(abs);
  return { size: stats.size, mtimeMs: stats.mtimeMs, sha256: createHash('sha256').update(readFileSync(abs)).digest('hex') };
}

describe('writeFileAtomic: the window between the last check and the rename', () => {
  it('an append made in the window is put back and the write refused', () => {
    const root = tempKb();
    const abs = put(root, 'notes/a.md', '---\nreview_count: 0\n---\n# Q\n');
    const seen = stampOf(abs);
    const write = (): unknown => writeFileAtomic(root, abs, '---\nreview_count: 1\n---\n# Q\n', seen, { beforeRename: () => appendFileSync(abs, 'appended by hand\n') });
    expect(write).toThrow(new FileChangedError(abs, 'it was written to while kb replaced it; that version was put back'));
    expect(readFileSync(abs, 'utf8')).toBe('---\nreview_count: 0\n---\n# Q\nappended by hand\n');
    expect(readdirSync(join(root, 'notes'))).toEqual(['a.md']);
  });

  it('the same with the expected content given as text', () => {
    const root = tempKb();
    const abs = put(root, 'notes/a.md', 'old\n');
    expect(() => writeFileAtomic(root, abs, 'new\n', 'old\n', { beforeRename: () => appendFileSync(abs, 'more\n') })).toThrow(/written to while kb replaced it; that version was put back/);
    expect(readFileSync(abs, 'utf8')).toBe('old\nmore\n');
  });

  it('a file saved over it in the window (an editor renaming its own temp file) stands', () => {
    const root = tempKb();
    const abs = put(root, 'notes/a.md', 'old\n');
    const seen = stampOf(abs);
    const editorSave = () => {
      writeFileSync(join(root, 'notes/.a.md.swp'), 'saved by the editor\n');
      renameSync(join(root, 'notes/.a.md.swp'), abs);
    };
    expect(() => writeFileAtomic(root, abs, 'new\n', seen, { beforeRename: editorSave })).toThrow(FileChangedError);
    expect(readFileSync(abs, 'utf8')).toBe('saved by the editor\n');
    expect(readdirSync(join(root, 'notes'))).toEqual(['a.md']);
  });

  it('property: whatever is appended in the window survives, and nothing else changes', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ maxLength: 40 }), fc.boolean(), (original, appended, byText) => {
        const root = tempKb();
        const abs = put(root, 'notes/a.md', original);
        const seen = byText ? original : stampOf(abs);
        const hook = appended === '' ? undefined : () => appendFileSync(abs, appended);
        let refused = false;
        try {
          writeFileAtomic(root, abs, `${original}!`, seen, { beforeRename: hook });
        } catch (error) {
          if (!(error instanceof FileChangedError)) throw error;
          refused = true;
        }
        expect(refused).toBe(appended !== '');
        expect(readFileSync(abs, 'utf8')).toBe(refused ? original + appended : `${original}!`);
        expect(readdirSync(join(root, 'notes'))).toEqual(['a.md']);
      }),
      { numRuns: 40 },
    );
  });
});

// A scan stages its id writes with the bytes it has just read (readBytes), so the only check
// against what it read is the one swapIn makes, maybe seconds later: it must still hold.
describe('stageWrite with readBytes, then swapIn', () => {
  function staged(root: string, abs: string) {
    const write = stageWrite(root, abs, 'new\n', stampOf(abs), { readBytes: readFileSync(abs) });
    closeStaged(write);
    return write;
  }

  it('an edit made after staging is kept and the write refused', () => {
    const root = tempKb();
    const abs = put(root, 'notes/a.md', 'old\n');
    const write = staged(root, abs);
    writeFileSync(abs, 'edited meanwhile\n');
    expect(() => swapIn(write)).toThrow(FileChangedError);
    expect(readFileSync(abs, 'utf8')).toBe('edited meanwhile\n');
    expect(readdirSync(join(root, 'notes'))).toEqual(['a.md']);
  });

  it('a note turned into a symbolic link after staging is not written through', () => {
    const root = tempKb();
    const abs = put(root, 'notes/a.md', 'old\n');
    const outside = join(mkdtempSync(join(tmpdir(), 'kb-outside-')), 'target.md');
    writeFileSync(outside, 'old\n');
    const write = staged(root, abs);
    unlinkSync(abs);
    symlinkSync(outside, abs);
    expect(() => swapIn(write)).toThrow(OutsideKnowledgeBaseError);
    expect(readFileSync(outside, 'utf8')).toBe('old\n');
    expect(readdirSync(join(root, 'notes'))).toEqual(['a.md']);
  });

  it('unchanged, it is swapped in and the held name is gone', () => {
    const root = tempKb();
    const abs = put(root, 'notes/a.md', 'old\n');
    const stamp = swapIn(staged(root, abs));
    expect(readFileSync(abs, 'utf8')).toBe('new\n');
    expect(stamp.mtimeMs).toBe(statSync(abs).mtimeMs);
    expect(readdirSync(join(root, 'notes'))).toEqual(['a.md']);
  });
});
