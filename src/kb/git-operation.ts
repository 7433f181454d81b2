// Whether the git repository holding a knowledge base is in the middle of a merge, rebase,
// cherry-pick or revert. Read from the git dir's marker files, without running git: every
// command asks (kb writes no note while git is mid-way, or `git rebase --continue` would
// find the files changed under it), and a spawn per command would cost more than the check.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export type GitOperation = 'merge' | 'rebase' | 'am' | 'cherry-pick' | 'revert';

/**
 * The git dir of the repository `folder` is in, or null when it is in none: `.git` as a folder,
 * or as a file saying `gitdir: PATH` (a worktree's, a submodule's), in `folder` or above it.
 */
export function gitDirOf(folder: string): string | null {
  for (let at = resolve(folder); ; at = dirname(at)) {
    const dotGit = join(at, '.git');
    const kind = statKind(dotGit);
    if (kind === 'folder') return dotGit;
    if (kind === 'file') {
      const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
      if (match) return resolve(at, match[1]);
    }
    if (dirname(at) === at) return null;
  }
}

/** The operation under way in `folder`'s repository, or null (also when it is in no repository). */
export function gitOperationInProgress(folder: string): GitOperation | null {
  const gitDir = gitDirOf(folder);
  if (gitDir === null) return null;
  // A worktree's own git dir holds these markers, so the one .git points to is the one to read.
  if (statKind(join(gitDir, 'rebase-merge')) === 'folder') return 'rebase';
  if (statKind(join(gitDir, 'rebase-apply')) === 'folder') return statKind(join(gitDir, 'rebase-apply', 'applying')) === 'file' ? 'am' : 'rebase';
  if (statKind(join(gitDir, 'MERGE_HEAD')) === 'file') return 'merge';
  if (statKind(join(gitDir, 'CHERRY_PICK_HEAD')) === 'file') return 'cherry-pick';
  if (statKind(join(gitDir, 'REVERT_HEAD')) === 'file') return 'revert';
  return null;
}

/** One line: what is under way and how to end it. */
export function gitOperationMessage(operation: GitOperation): string {
  return `a ${operation} is in progress: finish it with git ${operation} --continue (or --abort)`;
}

function statKind(path: string): 'file' | 'folder' | null {
  try {
    const stat = statSync(path);
    return stat.isDirectory() ? 'folder' : 'file';
  } catch {
    return null;
  }
}
