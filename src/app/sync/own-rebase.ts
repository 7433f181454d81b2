// kb sync's own rebase (its git pull --rebase), stopped midway by something other than a
// conflict, and taken back. Found as a user: a disk that filled during the rebase's checkout
// left HEAD and the index on the remote's commit and the files as they were, this device's
// log untracked; git rebase --abort then refused to overwrite it ("untracked working tree files
// would be overwritten by reset") even once space was freed, and the next kb sync said to
// finish with git rebase --continue, which drops this device's commit.
import { lstatSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitDirOf } from '../../kb/git-operation.ts';
import { describeFsFault, isFsFault } from '../../kb/fs-fault.ts';
import { git, gitComplaint, GitError } from './git.ts';

/**
 * kb sync marks the rebase its pull may begin: this file in the git dir holds the commit the
 * pull started from (git's rebase-merge/orig-head while that rebase is under way), and once
 * kb sync leaves that rebase stopped midway, the commit it was replaying onto (rebase-merge/onto),
 * so that a rebase of the user's begun later from the same commit is not taken for it. A
 * rebase kb sync hands over (a conflict for the user to resolve) is no longer marked.
 */
const MARK = 'kb-sync-rebase';

/** Marks the rebase about to begin from HEAD; returns HEAD. Throws GitError when the mark cannot be written (a full disk: the pull could not run either). */
export function markOwnRebase(top: string): string {
  const head = git(top, ['rev-parse', '--verify', 'HEAD']).stdout.trim();
  const path = join(gitDir(top), MARK);
  try {
    writeFileSync(path, `${head}\n`);
  } catch (error) {
    rmSync(path, { force: true });
    throw new GitError(`nothing was pulled: ${isFsFault(error) ? describeFsFault(error) : String(error)}`);
  }
  return head;
}

/** kb sync leaves its rebase stopped midway: the mark names it whole where it can (a full disk may refuse: the mark then stays as it was). */
export function keepOwnRebaseMark(top: string, origin: string): void {
  const onto = readGitFile(top, 'rebase-merge/onto');
  if (onto === null) return;
  try {
    writeFileSync(join(gitDir(top), MARK), `${origin}\n${onto}\n`);
  } catch {
    // the mark written before the pull stays
  }
}

export function unmarkOwnRebase(top: string): void {
  rmSync(join(gitDir(top), MARK), { force: true });
}

/** The commit kb sync's own rebase, in progress, started from (what git rebase --abort restores); null when the rebase in progress is not kb sync's. */
export function ownRebaseOrigin(top: string): string | null {
  const origin = readGitFile(top, 'rebase-merge/orig-head');
  const [marked, onto] = (readGitFile(top, MARK) ?? '').split('\n');
  if (origin === null || !/^[0-9a-f]{40,64}$/.test(origin) || marked !== origin) return null;
  return onto === undefined || onto === readGitFile(top, 'rebase-merge/onto') ? origin : null;
}

/**
 * The files git rebase --abort would lose: those that differ from the index and hold content in
 * neither the commit it restores (`origin`) nor HEAD. What the stopped checkout left (the old
 * files, this device's log untracked) is `origin`'s; what it wrote is HEAD's: both are kept.
 */
export function filesTheAbortWouldLose(top: string, origin: string): string[] {
  const status = git(top, ['status', '--porcelain=v1', '-z', '--untracked-files=all']).stdout.split('\0').filter(Boolean);
  const lost: string[] = [];
  for (let at = 0; at < status.length; at++) {
    const entry = status[at];
    const path = entry.slice(3);
    if (entry[0] === 'R' || entry[0] === 'C') at++; // the entry after a rename is its old path
    if (!isFile(join(top, path))) continue; // absent: nothing to lose (a folder: git lists its files)
    const inOrigin = blobOf(top, origin, path);
    // Untracked and not in `origin`: the abort leaves it alone.
    if (entry.startsWith('??') && inOrigin === null) continue;
    const now = git(top, ['hash-object', '--', path], { allowFail: true });
    const content = now.code === 0 ? now.stdout.trim() : null;
    if (content === null || (content !== inOrigin && content !== blobOf(top, 'HEAD', path))) lost.push(path);
  }
  return lost;
}

/**
 * git rebase --abort, for kb sync's own rebase. git refuses while an untracked file stands where
 * the restored commit (`origin`) has one: a file identical to that copy is removed (the abort
 * puts it back) and the abort tried again. Returns null when the rebase was taken back, else
 * why not, with what to do.
 */
export function takeBackOwnRebase(top: string, origin: string): string | null {
  let abort = git(top, ['rebase', '--abort'], { allowFail: true });
  if (abort.code === 0) return null;
  const blocking = overwrittenUntracked(abort.stderr);
  if (blocking.length > 0) {
    const differing = blocking.filter((path) => !sameAs(top, origin, path));
    if (differing.length > 0) {
      return (
        `git rebase --abort refuses to overwrite ${listed(differing)}, untracked and unlike its copy in this device's commit ${origin.slice(0, 7)}: ` +
        'move it elsewhere, then run kb sync again: it takes the rebase back (not git rebase --continue: it would drop this device\'s commit)'
      );
    }
    for (const path of blocking) rmSync(join(top, path), { force: true });
    abort = git(top, ['rebase', '--abort'], { allowFail: true });
    if (abort.code === 0) return null;
  }
  return `git rebase --abort: ${gitComplaint(abort)}: run kb sync again once that is fixed: it takes the rebase back (not git rebase --continue: it would drop this device's commit)`;
}

/** The files git named when it refused to overwrite untracked files (its list is indented by a tab). */
export function overwrittenUntracked(stderr: string): string[] {
  const lines = stderr.split('\n');
  const start = lines.findIndex((line) => line.includes('untracked working tree files would be overwritten'));
  if (start === -1) return [];
  const files: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('\t')) break;
    files.push(line.trim());
  }
  return files;
}

/** "a (and 2 more)" */
export function listed(paths: readonly string[]): string {
  return `${paths[0]}${paths.length > 1 ? ` (and ${paths.length - 1} more)` : ''}`;
}

/** The file `path` holds what `commit` has there (as git would store it: its filters applied). */
function sameAs(top: string, commit: string, path: string): boolean {
  const committed = blobOf(top, commit, path);
  if (committed === null || !isFile(join(top, path))) return false;
  const now = git(top, ['hash-object', '--', path], { allowFail: true });
  return now.code === 0 && now.stdout.trim() === committed;
}

/** The object `commit` has at `path` (a blob for a file), or null when it has nothing there. */
function blobOf(top: string, commit: string, path: string): string | null {
  const found = git(top, ['rev-parse', '--verify', '--quiet', `${commit}:${path}`], { allowFail: true });
  return found.code === 0 ? found.stdout.trim() : null;
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function gitDir(top: string): string {
  const dir = gitDirOf(top);
  if (dir === null) throw new Error(`${top}: no git dir`);
  return dir;
}

function readGitFile(top: string, path: string): string | null {
  try {
    return readFileSync(join(gitDir(top), path), 'utf8').trim();
  } catch {
    return null;
  }
}
