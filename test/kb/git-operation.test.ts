// The git dir is found as git finds it (a .git folder, or a .git file naming it, as in a
// worktree), and an operation under way is read from the markers git leaves there.
import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitDirOf, gitOperationInProgress } from '../../src/kb/git-operation.ts';
import { tempDir } from '../helpers/kb-cli.ts';

function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

describe('gitOperationInProgress', () => {
  it('is null outside a repository and in a repository at rest', () => {
    const outside = tempDir('kb-nogit-');
    expect(gitOperationInProgress(outside)).toBeNull();
    const repo = tempDir('kb-git-');
    git(repo, 'init', '--quiet');
    mkdirSync(join(repo, 'notes'));
    expect(gitDirOf(join(repo, 'notes'))).toBe(join(repo, '.git'));
    expect(gitOperationInProgress(join(repo, 'notes'))).toBeNull();
  });

  it('reads each marker git leaves', () => {
    const repo = tempDir('kb-git-');
    git(repo, 'init', '--quiet');
    const gitDir = join(repo, '.git');
    for (const [marker, operation] of [['MERGE_HEAD', 'merge'], ['CHERRY_PICK_HEAD', 'cherry-pick'], ['REVERT_HEAD', 'revert']] as const) {
      writeFileSync(join(gitDir, marker), '0'.repeat(40));
      expect(gitOperationInProgress(repo)).toBe(operation);
      spawnSync('rm', [join(gitDir, marker)]);
    }
    mkdirSync(join(gitDir, 'rebase-apply'));
    expect(gitOperationInProgress(repo)).toBe('rebase');
    writeFileSync(join(gitDir, 'rebase-apply', 'applying'), '');
    expect(gitOperationInProgress(repo)).toBe('am');
    mkdirSync(join(gitDir, 'rebase-merge'));
    expect(gitOperationInProgress(repo)).toBe('rebase');
  });

  it("follows a worktree's .git file to its own git dir", () => {
    const repo = tempDir('kb-git-');
    git(repo, 'init', '--quiet');
    writeFileSync(join(repo, 'a.md'), 'a\n');
    git(repo, 'add', 'a.md');
    git(repo, 'commit', '--quiet', '-m', 'a');
    const worktree = join(tempDir('kb-wt-'), 'wt');
    git(repo, 'worktree', 'add', '--quiet', '-b', 'side', worktree);
    const own = realpathSync(resolve(worktree, git(worktree, 'rev-parse', '--git-dir')));
    expect(realpathSync(gitDirOf(worktree)!)).toBe(own);
    expect(gitOperationInProgress(worktree)).toBeNull();
    writeFileSync(join(own, 'MERGE_HEAD'), '0'.repeat(40));
    expect(gitOperationInProgress(worktree)).toBe('merge');
    expect(gitOperationInProgress(repo)).toBeNull();
  });
});
