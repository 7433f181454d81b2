// A note kb add just made is untracked: kb sync leaves it as it is (git pull --rebase does too),
// and refuses, saying how to go on, only when the remote adds the same path.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb } from '../helpers/kb-cli.ts';
import { git, note, rate, sync, twoClones } from '../helpers/git-clones.ts';

describe('kb sync and untracked notes', () => {
  it('syncs around a note kb add made, leaving it untracked', () => {
    const { a, b, ids } = twoClones();
    rate(b, ids[0], 'good');
    expect(sync(b).code).toBe(0);
    const added = runKb(['--kb', a, 'add', 'What is goodput?', '--answer', 'Requests per second within their SLOs.']);
    expect(added.code, added.stderr).toBe(0);
    const untracked = git(a, 'status', '--porcelain', '--untracked-files=all');
    expect(untracked).toMatch(/^\?\? notes\/.*\.md$/m);
    const synced = sync(a);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toContain('1 new review event replayed');
    expect(git(a, 'status', '--porcelain', '--untracked-files=all')).toBe(untracked);
  });

  it('refuses when the remote adds the same path, leaving the note and no rebase behind', () => {
    const { a, b } = twoClones();
    writeFileSync(join(a, 'notes/four.md'), note('Four', '2025-10-04'));
    git(a, 'add', 'notes/four.md');
    git(a, 'commit', '--quiet', '-m', 'four');
    expect(sync(a).code).toBe(0);
    const mine = note('Four, as B wrote it', '2025-10-05').replace('---\n', '---\nid: four-by-b\n');
    writeFileSync(join(b, 'notes/four.md'), mine);
    const refused = sync(b);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('kb: sync: the remote adds notes/four.md, untracked here: commit it (git add, git commit) or move it away, then run kb sync again\n');
    expect(readFileSync(join(b, 'notes/four.md'), 'utf8')).toBe(mine);
    expect(git(b, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main\n');
    expect(git(b, 'status', '--porcelain')).toBe('?? notes/four.md\n');
  });
});
