// kb sync after many ratings: telling kb's own changes to the notes from the user's asks git
// for their committed texts together, not one git process per note (three each, 554 processes
// taking seconds with 185 notes rated since the last sync, found on a 5,000-note knowledge base).
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { commitWithOrigin, git, note, rate } from '../helpers/git-clones.ts';

/** A folder with a `git` that logs its first argument to `log`, then runs the real git. */
function countingGit(): { path: string; log: string } {
  const dir = tempDir('kb-git-shim-');
  const log = join(dir, 'calls.log');
  const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(join(dir, 'git'), `#!/bin/sh\necho "$1" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(dir, 'git'), 0o755);
  return { path: dir, log };
}

/** A synced knowledge base of `count` notes, `rated` of them rated since; kb sync's git commands, by name. */
function syncAfterRating(count: number, rated: number): { title: string; calls: string[] } {
  const files: Record<string, string> = { 'kb.json': '{}\n' };
  for (let n = 0; n < count; n++) files[`notes/note-${n}.md`] = note(`Note ${n}`, '2025-10-01');
  const root = writeKb(files);
  expect(runKb(['--kb', root, 'scan']).code).toBe(0);
  commitWithOrigin(root);
  git(root, 'push', '--quiet', '-u', 'origin', 'main');
  expect(runKb(['--kb', root, 'sync']).code).toBe(0);
  const cards = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as Array<{ id: string }>;
  for (const card of cards.slice(0, rated)) rate(root, card.id, 'good');
  const shim = countingGit();
  const synced = runKb(['--kb', root, 'sync'], { env: { PATH: `${shim.path}:${process.env.PATH}` } });
  expect(synced.code, synced.stderr).toBe(0);
  expect(git(root, 'status', '--porcelain')).toBe('');
  return { title: git(root, 'log', '-1', '--format=%s').trim(), calls: readFileSync(shim.log, 'utf8').trim().split('\n') };
}

describe('kb sync after many ratings', () => {
  it('commits every rated note with as many git commands as for one', () => {
    const one = syncAfterRating(6, 1);
    const six = syncAfterRating(6, 6);
    expect(one.title).toMatch(/^kb sync: reviews from device \w{8}, review fields of 1 note$/);
    expect(six.title).toMatch(/^kb sync: reviews from device \w{8}, review fields of 6 notes$/);
    expect(six.calls).toEqual(one.calls);
    expect(six.calls).not.toContain('show');
  });
});
