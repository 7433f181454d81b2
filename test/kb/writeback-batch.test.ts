// commitWritebacks (writeback.ts): a replay's write-backs as a batch. Every temp file is written,
// made durable together, then renamed in; a note edited in between is refused as changed and keeps
// the edit; no temp file stays. Also where `sync -f` cannot run (a fsync each).
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { commitWritebacks, prepareWriteback, type PreparedWriteback } from '../../src/kb/writeback.ts';
import type { KbPath } from '../../src/model/knowledge-base.ts';
import { put, tempKb } from './parse-fixtures.ts';

const ID = (n: number) => `card-${n}`;
const NOTE = (n: number) => `---\nid: ${ID(n)}\ncreated: 2025-10-01\n---\n# Question ${n}?\n\n## Answer\n\nYes.\n`;
const FIELDS = { last_reviewed: '2025-11-02', next_review: '2025-11-09', review_count: 1, mastery_level: 0.9 };

describe('commitWritebacks', () => {
  const ways = { 'one sync of the file system': {}, 'a fsync each, as sync -f cannot run': { noSync: true } };
  for (const [durable, { noSync }] of Object.entries(ways) as Array<[string, { noSync?: boolean }]>) {
    it(`writes every note (${durable}), and refuses one edited after it was read, keeping the edit`, () => {
      const root = tempKb();
      const paths = Array.from({ length: 30 }, (_, n) => `notes/${n % 2 === 0 ? 'a' : 'b'}/${n}.md` as KbPath);
      paths.forEach((path, n) => put(root, path, NOTE(n)));
      const prepared = paths.map((path, n) => prepareWriteback(root, path, ID(n), FIELDS) as PreparedWriteback);
      expect(prepared.every((one) => 'text' in one)).toBe(true);
      appendFileSync(join(root, paths[3]), 'An edit.\n');
      const path = process.env.PATH;
      if (noSync) process.env.PATH = join(root, 'no-such-folder');
      onTestFinished(() => void (process.env.PATH = path));

      const results = commitWritebacks(root, prepared, { syncFileSystemFrom: 1 });
      expect(results.map((result) => result.status)).toEqual(paths.map((_, n) => (n === 3 ? 'refused' : 'written')));
      expect(results[3]).toMatchObject({ changed: true });
      expect(readFileSync(join(root, paths[3]), 'utf8')).toBe(`${NOTE(3)}An edit.\n`);
      for (const [n, path] of paths.entries()) if (n !== 3) expect(readFileSync(join(root, path), 'utf8')).toContain('\nreview_count: 1\n');
      expect(['a', 'b'].flatMap((folder) => readdirSync(join(root, 'notes', folder)).filter((name) => name.endsWith('.kb-tmp')))).toEqual([]);
    });
  }
});
