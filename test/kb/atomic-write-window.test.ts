// Item 19 of issue #13: an outside edit landing between write-back's last check and its
// rename must not be lost. The hook runs exactly in that window, as a busy writer would.
import { createHash } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FileChangedError, writeFileAtomic } from '../../src/kb/atomic-write.ts';
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
