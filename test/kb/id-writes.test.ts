// The batched id writes of a scan (id-writes.ts): staged temp files are fsynced together and
// swapped in at the end; a note edited in between keeps the edit and is held for the next scan.
import { appendFileSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
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

/** Stages each note's id write, as a scan does, and hands the writes to `writes`. */
function stage(writes: IdWrites, root: string, paths: string[]) {
  const staged = paths.map((path) => scanFileStaged(input(root, path), context(root)));
  staged.forEach((result, index) => {
    expect(result.kind).toBe('pending');
    if (result.kind === 'pending') writes.add(index, result);
  });
  return staged;
}

describe('IdWrites', () => {
  const ways = {
    'a fsync each': { syncFileSystemFrom: Infinity },
    'one sync of the file system': { syncFileSystemFrom: 1 },
    'a fsync each, as sync -f cannot run': { syncFileSystemFrom: 1 },
    'a helper thread swapping alongside': { syncFileSystemFrom: 1, helpersFrom: 1 },
  };
  for (const [durable, options] of Object.entries(ways)) {
    it(`writes every staged note at the end (${durable}), and leaves a note edited in between as the editor left it`, async () => {
      const root = tempKb();
      const paths = ['notes/a/1.md', 'notes/a/2.md', 'notes/b/3.md', ...Array.from({ length: 40 }, (_, i) => `notes/c/${i}.md`)];
      for (const path of paths) put(root, path, NOTE);
      const writes = new IdWrites(options);
      onTestFinished(() => writes.close());
      const path = process.env.PATH;
      if (durable === 'a fsync each, as sync -f cannot run') process.env.PATH = join(root, 'no-such-folder');
      onTestFinished(() => void (process.env.PATH = path));
      stage(writes, root, paths);
      // Nothing renamed yet: the notes are as they were, their temp files beside them.
      for (const path of paths) expect(readFileSync(join(root, path), 'utf8')).toBe(NOTE);
      expect(readdirSync(join(root, 'notes/a')).filter((name) => name.endsWith('.kb-tmp'))).toHaveLength(2);
      appendFileSync(join(root, 'notes/b/3.md'), 'An edit.\n');

      await writes.prepare();
      const tempFiles = () => ['notes/a', 'notes/b', 'notes/c'].flatMap((folder) => readdirSync(join(root, folder)).filter((name) => name.endsWith('.kb-tmp')));
      let during = '';
      const corrections = writes.swap(() => {
        // With a helper: wait here until it has swapped every note (the edited one's failure included), so its path is the one tested.
        const until = Date.now() + 20_000;
        if ('helpersFrom' in options) while (tempFiles().length > 0 && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        during = `${tempFiles().length} temp files left`;
      });
      expect(during).toBe('helpersFrom' in options ? '0 temp files left' : `${paths.length} temp files left`);
      for (const path of paths.filter((path) => path !== 'notes/b/3.md')) {
        expect(readFileSync(join(root, path), 'utf8')).toMatch(/^---\ncreated: '2025-10-19'\nid: [a-z0-9]{12}\n---\n# Question\?/);
      }
      expect(readFileSync(join(root, 'notes/b/3.md'), 'utf8')).toBe(`${NOTE}An edit.\n`);
      // Only the edited note's outcome differs from the write counted as done: held, with the reason.
      expect([...corrections.keys()]).toEqual([2]);
      expect(corrections.get(2)).toMatchObject({ kind: 'parsed', idsWritten: 0, held: true, diagnostics: [{ severity: 'warning', file: 'notes/b/3.md', message: CHANGED_WHILE_SCANNED }] });
      expect(tempFiles()).toEqual([]);
    });
  }

  it("counts a written note with the stamp the next scan sees (the temp file's, kept by the rename)", async () => {
    const root = tempKb();
    put(root, 'notes/1.md', NOTE);
    const writes = new IdWrites();
    onTestFinished(() => writes.close());
    const [result] = stage(writes, root, ['notes/1.md']);
    await writes.prepare();
    expect(writes.swap().size).toBe(0);
    const stats = statSync(join(root, 'notes/1.md'));
    expect(result.kind === 'pending' && result.written).toMatchObject({ size: stats.size, mtimeMs: Math.trunc(stats.mtimeMs), idsWritten: 1 });
  });

  it('keeps a note as it was, with a warning, when its temp file cannot be fsynced', async () => {
    const root = tempKb();
    const paths = ['notes/1.md', 'notes/2.md'];
    for (const path of paths) put(root, path, NOTE);
    const writes = new IdWrites({ syncFileSystemFrom: Infinity });
    onTestFinished(() => writes.close());
    const staged = stage(writes, root, paths);
    // The first note's temp file is gone before the fsyncs (removed by someone else).
    if (staged[0].kind === 'pending') unlinkSync(staged[0].staged.temp);

    await writes.prepare();
    const corrections = writes.swap();
    expect(readFileSync(join(root, paths[0]), 'utf8')).toBe(NOTE);
    expect(readFileSync(join(root, paths[1]), 'utf8')).toMatch(/\nid: [a-z0-9]{12}\n/);
    expect([...corrections.keys()]).toEqual([0]);
    expect(corrections.get(0)).toMatchObject({ kind: 'parsed', idsWritten: 0, diagnostics: [{ severity: 'warning', message: expect.stringMatching(/^card ids not written: /) }] });
    expect(readdirSync(join(root, 'notes')).filter((name) => name.endsWith('.kb-tmp'))).toEqual([]);
  });

  it('hands out no write once the work done meanwhile fails (the transaction), and close removes every temp file', async () => {
    const root = tempKb();
    const paths = ['notes/1.md', 'notes/2.md'];
    for (const path of paths) put(root, path, NOTE);
    const writes = new IdWrites({ syncFileSystemFrom: 1 });
    stage(writes, root, paths);
    await writes.prepare();
    expect(() => writes.swap(() => {
      throw new Error('database is locked');
    })).toThrow('database is locked');
    writes.close();
    for (const path of paths) expect(readFileSync(join(root, path), 'utf8')).toBe(NOTE);
    expect(readdirSync(join(root, 'notes')).filter((name) => name.endsWith('.kb-tmp'))).toEqual([]);
  });

  it('ends kb on a Ctrl-C that came during the swap, once every note is whole', () => {
    const root = tempKb();
    const paths = ['notes/1.md', 'notes/2.md'];
    for (const path of paths) put(root, path, NOTE);
    const script = `
      import { IdWrites } from ${JSON.stringify(new URL('../../src/kb/id-writes.ts', import.meta.url).href)};
      import { scanFileStaged } from ${JSON.stringify(new URL('../../src/kb/scan-file.ts', import.meta.url).href)};
      import { statSync } from 'node:fs';
      const root = ${JSON.stringify(root)};
      const writes = new IdWrites({ cleanUpOnSignal: [root + '/notes'] });
      for (const [index, path] of ${JSON.stringify(paths)}.entries()) {
        const stats = statSync(root + '/' + path);
        writes.add(index, scanFileStaged({ path, abs: root + '/' + path, size: stats.size, mtimeMs: stats.mtimeMs, knownSha: null }, { root, writeIds: true, deriveWrittenIds: false, full: false }));
      }
      await writes.prepare();
      writes.swap(() => process.kill(process.pid, 'SIGINT'));
      writes.close();
      console.log('swapped');
      setTimeout(() => console.log('still running'), 2000);
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stdout).toBe('swapped\n');
    expect(child.signal).toBe('SIGINT');
    for (const path of paths) expect(readFileSync(join(root, path), 'utf8')).toMatch(/\nid: [a-z0-9]{12}\n/);
    expect(readdirSync(join(root, 'notes')).filter((name) => name.endsWith('.kb-tmp'))).toEqual([]);
  });
});
