// The batched id writes of a scan (id-writes.ts): staged temp files are fsynced together and
// swapped in at the end; a note edited in between keeps the edit and is held for the next scan.
import { appendFileSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { IdWrites } from '../../src/kb/id-writes.ts';
import { CHANGED_WHILE_SCANNED, scanFileStaged, type ScanFileContext } from '../../src/kb/scan-file.ts';
import { put, tempKb } from './parse-fixtures.ts';

const NOTE = "---\ncreated: '2025-10-19'\n---\n# Question?\n\n## Answer\n\nYes.\n";
const context = (root: string): ScanFileContext => ({ root, writeIds: true, deriveWrittenIds: false, full: false });

function input(root: string, path: string) {
  const abs = join(root, path);
  const stats = statSync(abs);
  return { path, abs, size: stats.size, mtimeMs: stats.mtimeMs, knownSha: null };
}

describe('IdWrites', () => {
  for (const durable of ['a fsync each', 'one sync of the file system', 'a fsync each, as sync -f cannot run'] as const) {
    it(`writes every staged note at the end (${durable}), and leaves a note edited in between as the editor left it`, async () => {
      const root = tempKb();
      const paths = ['notes/a/1.md', 'notes/a/2.md', 'notes/b/3.md'];
      for (const path of paths) put(root, path, NOTE);
      const writes = new IdWrites(durable === 'a fsync each' ? Infinity : 1);
      const path = process.env.PATH;
      if (durable === 'a fsync each, as sync -f cannot run') process.env.PATH = join(root, 'no-such-folder');
      onTestFinished(() => void (process.env.PATH = path));
      const staged = paths.map((path) => scanFileStaged(input(root, path), context(root)));
      for (const result of staged) {
        expect(result.kind).toBe('pending');
        if (result.kind === 'pending') writes.add(result);
      }
      // Nothing renamed yet: the notes are as they were, their temp files beside them.
      for (const path of paths) expect(readFileSync(join(root, path), 'utf8')).toBe(NOTE);
      expect(readdirSync(join(root, 'notes/a')).filter((name) => name.endsWith('.kb-tmp'))).toHaveLength(2);
      appendFileSync(join(root, 'notes/b/3.md'), 'An edit.\n');

      const outcomes = await writes.finish(staged);
      for (const path of paths.slice(0, 2)) expect(readFileSync(join(root, path), 'utf8')).toMatch(/^---\ncreated: '2025-10-19'\nid: [a-z0-9]{12}\n---\n# Question\?/);
      expect(readFileSync(join(root, 'notes/b/3.md'), 'utf8')).toBe(`${NOTE}An edit.\n`);
      expect(outcomes.map((outcome) => (outcome.kind === 'parsed' ? [outcome.idsWritten, outcome.held === true] : outcome.kind))).toEqual([
        [1, false],
        [1, false],
        [0, true],
      ]);
      expect(outcomes[2]).toMatchObject({ diagnostics: [{ severity: 'warning', file: 'notes/b/3.md', message: CHANGED_WHILE_SCANNED }] });
      const written = outcomes[0].kind === 'parsed' ? outcomes[0] : null;
      expect(written?.size).toBe(statSync(join(root, paths[0])).size);
      for (const folder of ['notes/a', 'notes/b']) expect(readdirSync(join(root, folder)).filter((name) => name.endsWith('.kb-tmp'))).toEqual([]);
    });
  }

  it('keeps a note as it was, with a warning, when its temp file cannot be fsynced', async () => {
    const root = tempKb();
    const paths = ['notes/1.md', 'notes/2.md'];
    for (const path of paths) put(root, path, NOTE);
    const writes = new IdWrites(Infinity);
    const staged = paths.map((path) => scanFileStaged(input(root, path), context(root)));
    for (const result of staged) if (result.kind === 'pending') writes.add(result);
    // The first note's temp file is gone before the fsyncs (removed by someone else).
    if (staged[0].kind === 'pending') unlinkSync(staged[0].staged.temp);

    const outcomes = await writes.finish(staged);
    expect(readFileSync(join(root, paths[0]), 'utf8')).toBe(NOTE);
    expect(readFileSync(join(root, paths[1]), 'utf8')).toMatch(/\nid: [a-z0-9]{12}\n/);
    expect(outcomes[0]).toMatchObject({ kind: 'parsed', idsWritten: 0, diagnostics: [{ severity: 'warning', message: expect.stringMatching(/^card ids not written: /) }] });
    expect(outcomes[1]).toMatchObject({ kind: 'parsed', idsWritten: 1 });
    expect(readdirSync(join(root, 'notes')).filter((name) => name.endsWith('.kb-tmp'))).toEqual([]);
  });
});
