// kb sync's own rebase stopped midway (found as a user: a disk that filled during the rebase's
// checkout left HEAD and the index on the remote's commit and the files as they were, this
// device's log untracked). git rebase --abort then refused to overwrite the log even once space
// was freed, and the next kb sync said "finish it with git rebase --continue (or --abort)",
// where --continue drops this device's commit. sync-full-disk.test.ts makes that state on a real
// full disk; here it is made by hand, so each case runs everywhere.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { divergedClones, git, sync } from '../helpers/git-clones.ts';

/**
 * B's kb sync committed B's rating (its log new in that commit) and began its rebase onto A's
 * commit; the checkout moved HEAD and the index, the files stayed as in B's commit. `marked`:
 * kb sync marked the rebase as its own, as it does before each pull.
 */
function stoppedRebase(marked: boolean) {
  const { a, b, ids } = divergedClones(1);
  git(b, 'add', '-A');
  git(b, 'commit', '--quiet', '-m', 'kb sync: reviews from device b');
  const own = git(b, 'rev-parse', 'HEAD').trim();
  const ownLog = git(b, 'show', '--name-only', '--format=', 'HEAD').split('\n').find((path) => path.startsWith('reviews/'))!;
  git(b, 'fetch', '--quiet', 'origin');
  // A rebase stopped right after checking out the remote's commit (exec false), then the
  // files put back as they were in B's commit: what the full disk left.
  const rebase = spawnGit(b, ['-c', 'sequence.editor=sed -i "1i exec false"', 'rebase', '--quiet', '-i', 'origin/main']);
  expect(rebase.status).not.toBe(0);
  git(b, 'restore', `--source=${own}`, '--worktree', '--', '.');
  if (marked) writeFileSync(join(b, '.git/kb-sync-rebase'), `${own}\n`);
  expect(git(b, 'status', '--porcelain', '--untracked-files=all')).toContain(`?? ${ownLog}`);
  return { a, b, own, ownLog };
}

function spawnGit(cwd: string, args: string[]) {
  return spawnSync('git', args, { cwd, encoding: 'utf8' });
}

describe("kb sync after its own rebase was stopped midway", () => {
  it("takes it back itself (the untracked log is this device's commit's) and syncs", () => {
    const { a, b, own, ownLog } = stoppedRebase(true);
    const synced = sync(b);
    expect(synced.code, synced.stderr).toBe(0);
    // B's commit was replayed onto A's and pushed: its log is in the remote, with A's.
    expect(git(b, 'log', '--format=%s', 'origin/main')).toContain('kb sync: reviews from device b');
    expect(git(b, 'show', `origin/main:${ownLog}`)).toBe(git(b, 'show', `${own}:${ownLog}`));
    expect(git(b, 'status', '--porcelain')).toBe('');
    expect(sync(a).code).toBe(0);
    expect(readFileSync(join(a, ownLog), 'utf8')).toBe(git(b, 'show', `${own}:${ownLog}`));
  });

  it('never says --continue: an untracked file unlike its committed copy is named, and nothing changes', () => {
    const { b, ownLog } = stoppedRebase(true);
    writeFileSync(join(b, ownLog), `${readFileSync(join(b, ownLog), 'utf8')}{"a line": "not committed"}\n`);
    const head = git(b, 'rev-parse', 'HEAD');
    const refused = sync(b);
    expect(refused.code).toBe(1);
    // (kb first warns of the line it cannot read in the log.)
    expect(refused.stderr.split('\n').filter((line) => line.startsWith('kb: sync:'))).toEqual([
      `kb: sync: an earlier kb sync's git pull --rebase was stopped midway (a full disk, say), and ${ownLog} differs from both this device's commit and the remote's, ` +
        "which git rebase --abort would overwrite: move it elsewhere, then run kb sync again (not git rebase --continue: it would drop this device's commit)",
    ]);
    expect(git(b, 'rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(join(b, ownLog), 'utf8')).toContain('not committed');
    // Moved away, kb sync takes the rebase back and syncs.
    git(b, 'clean', '--quiet', '-f', '--', ownLog);
    const synced = sync(b);
    expect(synced.code, synced.stderr).toBe(0);
    expect(git(b, 'log', '--format=%s', 'origin/main')).toContain('kb sync: reviews from device b');
  });

  it("does not take a rebase begun later from the same commit for its own", () => {
    const { b, own } = stoppedRebase(true);
    // The mark of a rebase kb sync left stopped names its onto too: this one went onto another.
    writeFileSync(join(b, '.git/kb-sync-rebase'), `${own}\n${git(b, 'rev-parse', 'HEAD~1').trim()}\n`);
    const refused = sync(b);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('kb: sync: a rebase is in progress: finish it with git rebase --continue (or --abort)\n');
  });

  it("leaves a rebase that is not its own to the user, as before", () => {
    const { b } = stoppedRebase(false);
    const refused = sync(b);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('kb: sync: a rebase is in progress: finish it with git rebase --continue (or --abort)\n');
  });
});
