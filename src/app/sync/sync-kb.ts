// kb sync: the review log and the notes' review fields travel through git. Local reviews
// are committed, the remote's pulled (rebase), the merged logs replayed and the rewritten
// fields committed, then pushed. Plain git does the same by hand; kb sync only refuses
// where a person must decide: other uncommitted changes, or a conflict outside the fields.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { differOnlyInKbFields, kbFieldChanges } from '../../kb/review-fields-merge.ts';
import { gitOperationInProgress, gitOperationMessage } from '../../kb/git-operation.ts';
import { git, gitComplaint, GitError, readAtHead } from './git.ts';
import { installMergeDriver, MERGE_DRIVER_FAILED } from './merge-driver.ts';
import { filesTheAbortWouldLose, keepOwnRebaseMark, listed, markOwnRebase, overwrittenUntracked, ownRebaseOrigin, takeBackOwnRebase, unmarkOwnRebase } from './own-rebase.ts';

export class SyncRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncRefused';
  }
}

export interface SyncSteps {
  /** Opens the knowledge base (reading and replaying every log, rewriting fields); returns how many events it holds. */
  replay(): Promise<number>;
}

export interface SyncOptions {
  root: string;
  /** The git remote; default: the branch's upstream, else `origin`. */
  remote?: string;
  /** How git runs kb's merge driver. */
  kbCommand: string;
  device: string;
  /** kb.json's notesFolders: which paths hold notes (to tell kb's own changes to them). */
  notesFolders: readonly string[];
  /** kb.json's idKey: the frontmatter key of a note's id (default id). */
  idKey?: string;
}

export interface SyncReport {
  /** What this device's commit held ("reviews from device 3fe44c1a, ..."), or null when there was nothing to commit. */
  committedBefore: string | null;
  pulled: string | null;
  eventsBefore: number;
  eventsAfter: number;
  committedAfter: boolean;
  /** Where the push went; null when the remote already had every commit. */
  pushed: string | null;
  /** The remote branch synced with. */
  remote: string;
}

export async function syncKnowledgeBase(options: SyncOptions, steps: SyncSteps): Promise<SyncReport> {
  const top = repositoryTop(options.root);
  const prefix = relative(top, options.root).split('\\').join('/');
  const inKb = (path: string) => (prefix === '' ? path : `${prefix}/${path}`);
  const kbChanged = (path: string, atHead: AtHead) => onlyKbFieldsChanged(top, path, prefix === '' ? path : path.slice(prefix.length + 1), options.notesFolders, atHead, options.idKey);
  const ownLog = inKb(`reviews/${options.device}.jsonl`);
  // A paused rebase is a detached HEAD: committing there and pushing `HEAD` would create a
  // remote branch named HEAD while the rebase still waits to be finished.
  const operation = gitOperationInProgress(top);
  const interruptedSync = operation === 'rebase' ? ownRebaseOrigin(top) : null;
  if (interruptedSync !== null) takeBackInterruptedSync(top, interruptedSync);
  else if (operation !== null) throw new SyncRefused(gitOperationMessage(operation));
  else unmarkOwnRebase(top); // the user took the rebase back: the mark must not name a later one
  const branch = currentBranch(top);
  if (git(top, ['diff', '--name-only', '--diff-filter=U']).stdout.trim() !== '') {
    throw new SyncRefused('the repository has unresolved merge conflicts: resolve them with git (git status), then run kb sync again');
  }
  // Refuse before writing anything (the driver's .gitattributes included): other changes, no
  // remote, no identity for git to commit under.
  kbChanges(top, inKb, kbChanged, ownLog);
  const remote = options.remote ?? upstreamRemote(top, branch) ?? (hasRemote(top, 'origin') ? 'origin' : null);
  if (remote === null) throw new SyncRefused('no git remote to sync with: add one (git remote add origin URL) or name one with --remote');
  if (!hasRemote(top, remote)) throw new SyncRefused(`--remote: no git remote named "${remote}" (git remote -v lists them)`);
  if (git(top, ['var', 'GIT_AUTHOR_IDENT'], { allowFail: true }).code !== 0) {
    throw new SyncRefused('git has no name and email to commit under here: set them with git config user.name and git config user.email');
  }
  installMergeDriver(options.root, options.kbCommand);
  const eventsBefore = await steps.replay();
  const noteChange = (path: string, atHead: AtHead) => kbNoteChange(top, path, prefix === '' ? path : path.slice(prefix.length + 1), options.notesFolders, atHead, options.idKey);
  const whatKbChanged = (paths: string[], atHead: AtHead) => whatChanged(paths, inKb, options.device, (path) => noteChange(path, atHead));
  let committedBefore = commitReviewChanges(top, inKb, kbChanged, ownLog, whatKbChanged);
  // A rating (kb rate, kb review, a card command) that lands between the commit and the pull
  // leaves its note and log line uncommitted, and git refuses to rebase over them (found as a
  // power user: a cron kb sync beside a rating script failed 7 times in 10 with git's "cannot
  // pull with rebase: You have unstaged changes"). They are kb's own: committed, then pulled again.
  const pull = (): string | null => {
    for (let attempt = 1; ; attempt++) {
      try {
        return pullFromRemote(top, remote, branch);
      } catch (error) {
        if (!(error instanceof ChangedMeanwhile)) throw error;
        if (attempt === PULL_TRIES) {
          throw new GitError(`git pull --rebase ${remote} ${branch}: other kb commands kept rating or changing cards while kb sync pulled (their changes are kept): run kb sync again`);
        }
        committedBefore = commitReviewChanges(top, inKb, kbChanged, ownLog, whatKbChanged) ?? committedBefore;
      }
    }
  };

  // The push is refused when the remote moved since the pull (the other clone pushed meanwhile,
  // found as a user: kb said only "error: failed to push some refs"). kb sync then pulls,
  // replays and pushes once more itself; a remote that moves again is said as such.
  let pulled: string | null = null;
  let eventsAfter = eventsBefore;
  let committedAfter = false;
  for (let attempt = 1; ; attempt++) {
    pulled = pull() ?? pulled;
    eventsAfter = await steps.replay();
    committedAfter = commitReviewChanges(top, inKb, kbChanged, ownLog, () => 'review fields from the merged review logs') !== null || committedAfter;
    const push = outlivingCtrlC(() => git(top, ['push', '--porcelain', remote, `HEAD:refs/heads/${branch}`], { allowFail: true }));
    if (push.code === 0) {
      // --porcelain marks a ref the remote already had with '=': then nothing was sent.
      const sent = !/^=\t/m.test(push.stdout);
      return { committedBefore, pulled, eventsBefore, eventsAfter, committedAfter, pushed: sent ? `${remote}/${branch}` : null, remote: `${remote}/${branch}` };
    }
    const failure = `git push ${remote} ${branch}`;
    if (push.signal === 'SIGINT') {
      throw new GitError(`${failure}: interrupted (Ctrl-C); this clone's commits are kept: run kb sync again to push them`, { interrupted: true });
    }
    // The ref's line: "!\t<src>:<dst>\t[rejected] (fetch first)" when the remote has commits
    // this clone lacks; "[remote rejected] (failed to update ref)" when they arrived while this
    // push was under way (or the remote could not write: a second try then says so again).
    const refused = /^!\t[^\t]*\t(.*)$/m.exec(push.stdout)?.[1];
    const stale = refused !== undefined && /^\[rejected\] \((fetch first|non-fast-forward)\)/.test(refused);
    const raced = refused !== undefined && /^\[remote rejected\] \((failed to update ref|cannot lock ref)/.test(refused);
    if ((stale || raced) && attempt === 1) continue;
    if (stale) throw new GitError(`${failure}: the remote received other commits again while kb sync pulled and pushed: run kb sync again`);
    throw new GitError(`${failure}: ${refused ?? gitComplaint(push)}`);
  }
}

/** How many times kb sync commits what other kb commands changed meanwhile and pulls again. */
const PULL_TRIES = 5;

/** git refused to pull: files changed since kb sync committed (kb's, by another kb meanwhile, or not). */
class ChangedMeanwhile extends GitError {}

/**
 * git pull --rebase from `remote`'s `branch`, when the remote has it; returns what was pulled, or
 * null when the remote has no such branch yet. Throws (SyncRefused, GitError) saying what stopped it.
 */
function pullFromRemote(top: string, remote: string, branch: string): string | null {
  const heads = outlivingCtrlC(() => git(top, ['ls-remote', '--exit-code', '--heads', remote, branch], { allowFail: true }));
  if (heads.signal === 'SIGINT') throw new GitError(`git ls-remote ${remote}: interrupted (Ctrl-C); nothing was pulled or pushed: run kb sync again`, { interrupted: true });
  if (heads.code === 0) {
    const origin = markOwnRebase(top);
    let keepMark = false;
    try {
      return pullMarked(top, remote, branch, origin, () => (keepMark = true));
    } finally {
      if (!keepMark) unmarkOwnRebase(top);
    }
  }
  return null;
}

/** pullFromRemote's pull, its rebase marked as kb sync's own; `keepMark` when that rebase is left stopped midway. */
function pullMarked(top: string, remote: string, branch: string, origin: string, keepMark: () => void): string {
  const tempsBefore = mergeTempFiles(top);
  const pull = outlivingCtrlC(() => git(top, ['pull', '--rebase', '--no-autostash', remote, branch], { allowFail: true }));
  removeNewMergeTempFiles(top, tempsBefore);
  const interrupted = pull.signal === 'SIGINT';
  if (pull.code !== 0) {
    // Refused before it began (git checks the working tree first): nothing to take back.
    if (!interrupted && gitOperationInProgress(top) === null && /You have unstaged changes|Your index contains uncommitted changes/.test(pull.stderr)) {
      throw new ChangedMeanwhile(`git pull --rebase ${remote} ${branch}: ${gitComplaint(pull)}`);
    }
    const conflicted = git(top, ['diff', '--name-only', '--diff-filter=U']).stdout.trim().split('\n').filter(Boolean);
    // git (2.39) counts a failure of kb's merge driver (a full disk) as a conflict: kb said to
    // resolve it and run git rebase --continue, which commits whatever the driver left. The
    // driver says it failed in a line of its own; the rebase is then taken back below.
    // (git's progress, "Rebasing (1/1)", ends in a carriage return before it.)
    const driverFailures = pull.stderr.split(/[\r\n]+/).filter((line) => line.startsWith(MERGE_DRIVER_FAILED)).map((line) => line.slice(MERGE_DRIVER_FAILED.length));
    if (conflicted.length > 0 && !interrupted && driverFailures.length === 0) {
      throw new SyncRefused(
        `git pull --rebase stopped on a conflict outside the review fields in ${listed(conflicted)}: ` +
          'resolve it with git (git status, then git rebase --continue), then run kb sync again',
      );
    }
    const overwritten = overwrittenUntracked(pull.stderr);
    if (overwritten.length > 0 && !interrupted) {
      throw new SyncRefused(
        `the remote adds ${listed(overwritten)}, untracked here: ` +
          'commit it (git add, git commit) or move it away, then run kb sync again',
      );
    }
    const failure = `git pull --rebase ${remote} ${branch}: ${driverFailures.length > 0 ? `kb's merge driver failed on ${listed(driverFailures)}` : gitComplaint(pull)}`;
    // Stopped otherwise (found as a user: a full disk) git can leave its rebase in progress
    // with this device's commit not replayed, and git rebase --continue, as for a conflict,
    // then ends it without that commit: its ratings' lines gone from the log. kb sync began
    // this rebase and nothing of the user's is in it yet: it takes it back.
    if (gitOperationInProgress(top) === 'rebase') {
      const notTakenBack = takeBackOwnRebase(top, origin);
      if (notTakenBack === null) {
        throw new GitError(`${failure}; the rebase it began was taken back (git rebase --abort), this device's commits kept: run kb sync again${interrupted ? ' to finish' : ' once that is fixed'}`, { interrupted });
      }
      // (A full disk still full, say.) The mark stays: the next kb sync takes the rebase back.
      keepMark();
      keepOwnRebaseMark(top, origin);
      throw new GitError(`${failure}; the rebase it began could not be taken back yet: ${notTakenBack}`, { interrupted });
    }
    throw new GitError(interrupted ? `${failure}: run kb sync again` : failure, { interrupted });
  }
  return `${remote}/${branch}`;
}

/**
 * An earlier kb sync's own rebase, stopped midway and not taken back then (the disk still
 * full): taken back now, unless that would lose a file changed since; then kb sync goes on.
 */
function takeBackInterruptedSync(top: string, origin: string): void {
  const stopped = "an earlier kb sync's git pull --rebase was stopped midway (a full disk, say)";
  const lost = filesTheAbortWouldLose(top, origin);
  if (lost.length > 0) {
    throw new SyncRefused(
      `${stopped}, and ${listed(lost)} differs from both this device's commit and the remote's, which git rebase --abort would overwrite: ` +
        `move it elsewhere, then run kb sync again (not git rebase --continue: it would drop this device's commit)`,
    );
  }
  const notTakenBack = takeBackOwnRebase(top, origin);
  if (notTakenBack !== null) throw new GitError(`${stopped} and cannot be taken back yet: ${notTakenBack}`);
  unmarkOwnRebase(top);
}

/**
 * Runs a git command that waits on the network, where a Ctrl-C lands. It reaches git and kb
 * alike: without a listener kb died with git, saying nothing, and a pull's rebase was left half
 * done (found as a user). Listening, kb outlives git, and says what the Ctrl-C stopped.
 */
function outlivingCtrlC<T>(run: () => T): T {
  const outlive = () => {};
  process.on('SIGINT', outlive);
  try {
    return run();
  } finally {
    process.off('SIGINT', outlive);
  }
}

/**
 * git's temporary copies of a note's three versions for a merge driver (%O %A %B):
 * ".merge_file_" and six characters, in the worktree's top. git (2.39 at least) makes them with
 * mkstemp and, dying midway, leaves them there: a full disk ("fatal: unable to write
 * temp-file"), a Ctrl-C while the driver ran. kb's driver itself writes only into them.
 */
const MERGE_TEMP_FILE = /^\.merge_file_[A-Za-z0-9]{6}$/;

function mergeTempFiles(top: string): Set<string> {
  try {
    return new Set(readdirSync(top).filter((name) => MERGE_TEMP_FILE.test(name)));
  } catch {
    return new Set();
  }
}

/**
 * Removes the merge temporary files that appeared during kb sync's own pull (found as a user: a
 * pull stopped by a full disk left them in the repository's top). One there before, or one git
 * tracks, may be the user's: it stays.
 */
function removeNewMergeTempFiles(top: string, before: ReadonlySet<string>): void {
  const appeared = [...mergeTempFiles(top)].filter((name) => !before.has(name));
  if (appeared.length === 0) return;
  const listed = git(top, ['ls-files', '-z', '--', ...appeared.map((name) => `:(literal)${name}`)], { allowFail: true });
  if (listed.code !== 0) return; // which are tracked is unknown: none is taken for git's
  const tracked = new Set(listed.stdout.split('\0'));
  for (const name of appeared) {
    if (tracked.has(name)) continue;
    try {
      rmSync(join(top, name), { force: true });
    } catch {
      // Not removable: left as git left it, the sync's own error says what went wrong.
    }
  }
}

function repositoryTop(root: string): string {
  const found = git(root, ['rev-parse', '--show-toplevel'], { allowFail: true });
  if (found.code !== 0) throw new SyncRefused(`${root} is not in a git repository: git init it and add a remote first (README: Review on several machines)`);
  return found.stdout.trim();
}

/** The branch HEAD is on; refused when HEAD is detached (rev-parse would answer "HEAD"). */
function currentBranch(top: string): string {
  const ref = git(top, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFail: true });
  if (ref.code !== 0) throw new SyncRefused('HEAD is detached (on no branch): switch to a branch first (git switch BRANCH)');
  return ref.stdout.trim();
}

function upstreamRemote(top: string, branch: string): string | null {
  const remote = git(top, ['config', `branch.${branch}.remote`], { allowFail: true });
  return remote.code === 0 ? remote.stdout.trim() || null : null;
}

function hasRemote(top: string, name: string): boolean {
  return git(top, ['remote']).stdout.split('\n').includes(name);
}

type KbChanged = (path: string, atHead: AtHead) => boolean;

/** A file's text as committed at HEAD (path from the repository's top), or null when HEAD lacks it. */
type AtHead = (path: string) => string | null;

/**
 * Commits what kb itself changed under "kb sync: <what>": this device's review log, .gitattributes, the
 * weights kb optimize wrote into kb.json, and notes whose change against HEAD is only their
 * review fields and new card ids. Anything else uncommitted is the user's: refused. Returns
 * the what, or null when there was nothing.
 */
function commitReviewChanges(
  top: string,
  inKb: (path: string) => string,
  kbChanged: KbChanged,
  ownLog: string,
  what: (paths: string[], atHead: AtHead) => string,
): string | null {
  const { ours, atHead } = kbChangesAtHead(top, inKb, kbChanged, ownLog);
  if (ours.length === 0) return null;
  git(top, ['add', '--', ...ours]);
  if (git(top, ['diff', '--cached', '--quiet'], { allowFail: true }).code === 0) return null;
  const title = what(ours, atHead); // HEAD has not moved: the texts kbChanges read still hold
  git(top, ['commit', '--quiet', '--no-verify', '-m', `kb sync: ${title}`, '--', ...ours]);
  return title;
}

/**
 * A commit title for what kb changed: "reviews from device 3fe44c1a, review fields of 2 notes,
 * card ids in 1 file, the merge driver". Review fields and ids are named only where the commit
 * holds them (it said "ids and review fields" whenever a note changed).
 */
function whatChanged(paths: readonly string[], inKb: (path: string) => string, device: string, noteChange: (path: string) => NoteChange): string {
  const logs = paths.filter((path) => path.startsWith(`${inKb('reviews')}/`)).length;
  const notes = paths.filter((path) => path.endsWith('.md')).map(noteChange);
  const fields = notes.filter((change) => change.reviewFields).length;
  const ids = notes.filter((change) => change.ids).length;
  const parts = [
    ...(logs > 0 ? [`reviews from device ${device.slice(0, 8)}`] : []),
    ...(fields > 0 ? [`review fields of ${fields === 1 ? '1 note' : `${fields} notes`}`] : []),
    ...(ids > 0 ? [`card ids in ${ids === 1 ? '1 file' : `${ids} files`}`] : []),
    ...(paths.includes(inKb('.gitattributes')) ? ['the merge driver (.gitattributes)'] : []),
    ...(paths.includes(inKb('kb.json')) ? ['fitted FSRS weights (kb.json)'] : []),
  ];
  return parts.join(', ');
}

/** The uncommitted paths kb itself changed; throws SyncRefused naming any other. */
function kbChanges(top: string, inKb: (path: string) => string, kbChanged: KbChanged, ownLog: string): string[] {
  return kbChangesAtHead(top, inKb, kbChanged, ownLog).ours;
}

/** kbChanges, with how it read the files' committed texts (for whatChanged, while HEAD stays). */
function kbChangesAtHead(top: string, inKb: (path: string) => string, kbChanged: KbChanged, ownLog: string): { ours: string[]; atHead: AtHead } {
  const status = git(top, ['status', '--porcelain=v1', '-z', '--untracked-files=all']).stdout.split('\0').filter(Boolean);
  // Every text at HEAD the checks below compare with, read at once (one git process, not one a file).
  const compared: string[] = [];
  for (let at = 0; at < status.length; at++) {
    const code = status[at].slice(0, 2);
    const path = status[at].slice(3);
    if (code[0] === 'R' || code[0] === 'C') at++;
    if (path === ownLog || (code.trim() === 'M' && (path.endsWith('.md') || path === inKb('kb.json')))) compared.push(path);
  }
  const texts = readAtHead(top, compared);
  const atHead: AtHead = (path) => (texts.has(path) ? texts.get(path)! : readAtHead(top, [path]).get(path)!);
  const ours: string[] = [];
  const others: string[] = [];
  const logs: string[] = [];
  for (let at = 0; at < status.length; at++) {
    const entry = status[at];
    const code = entry.slice(0, 2);
    const path = entry.slice(3);
    if (code[0] === 'R' || code[0] === 'C') at++; // the entry after a rename is its old path
    if (path === inKb('.gitattributes')) ours.push(path);
    // kb only ever appends to this device's log. Any other change to a log (another device's
    // changed or new, this one's cut short or deleted) is no rating of this device: found as a
    // user, a git pull --rebase stopped by a full disk left the remote's logs over the branch's,
    // and kb sync committed them, this device's last rating taken out of its log.
    else if (path.startsWith(`${inKb('reviews')}/`)) {
      if (path === ownLog && onlyAppendedTo(top, path, atHead)) ours.push(path);
      else if (code !== '??') logs.push(path);
    }
    // Untracked (a note kb add just made): pull --rebase leaves it alone unless the remote adds
    // the same path, and then git refuses before changing anything (overwrittenUntracked).
    else if (code === '??') continue;
    else if (code.trim() === 'M' && path.endsWith('.md') && kbChanged(path, atHead)) ours.push(path);
    // kb optimize's fitted weights are committed with the reviews they were fitted to, so every
    // clone replays under the same ones (kb sync refused kb optimize's own write, found as a user).
    else if (code.trim() === 'M' && path === inKb('kb.json') && onlyFittedWeightsChanged(top, path, atHead)) ours.push(path);
    else others.push(path);
  }
  if (logs.length > 0) {
    throw new SyncRefused(
      `${logs[0]}${logs.length > 1 ? ` (and ${logs.length - 1} more)` : ''} changed other than by kb's appends to this device's log ` +
        `(a git command stopped midway, by a full disk say, leaves a log so): git diff shows how; ` +
        `git checkout -- ${logs[0]} takes back the committed file; then run kb sync again`,
    );
  }
  if (others.length > 0) {
    throw new SyncRefused(
      `uncommitted changes besides kb's in ${others[0]}${others.length > 1 ? ` (and ${others.length - 1} more)` : ''}: commit or stash them first (kb sync commits only review logs, review fields, card ids and kb optimize's weights)`,
    );
  }
  return { ours, atHead };
}

/** `path` is new since HEAD, or HEAD's text followed by more (what kb's appends make). */
function onlyAppendedTo(top: string, path: string, atHead: AtHead): boolean {
  let versions;
  try {
    versions = headAndNow(top, path, atHead);
  } catch {
    return false; // deleted
  }
  return versions === null || versions.now.startsWith(versions.head);
}

/** `path` as committed at HEAD and as it is now, or null when HEAD lacks it. */
function headAndNow(top: string, path: string, atHead: AtHead): { head: string; now: string } | null {
  const head = atHead(path);
  return head !== null ? { head, now: readFileSync(join(top, path), 'utf8') } : null;
}

/** kb.json differs from HEAD's only in the key kb optimize writes. */
function onlyFittedWeightsChanged(top: string, path: string, atHead: AtHead): boolean {
  const versions = headAndNow(top, path, atHead);
  if (versions === null) return false;
  const withoutWeights = (text: string): unknown => {
    const { fsrsParameters: _weights, ...rest } = JSON.parse(text.replace(/^\uFEFF/, '')) as Record<string, unknown>;
    return rest;
  };
  try {
    return isDeepStrictEqual(withoutWeights(versions.head), withoutWeights(versions.now));
  } catch {
    return false; // not JSON: the user's edit, theirs to commit
  }
}

type NoteChange = { reviewFields: boolean; ids: boolean };

/**
 * What kb changed in a note kbChanges took as its own (`path` from the repository's top, `kbPath`
 * from the knowledge base's root). A change seen as neither is counted as review fields, the
 * write kb makes most, so that the title never leaves a committed note out.
 */
function kbNoteChange(top: string, path: string, kbPath: string, notesFolders: readonly string[], atHead: AtHead, idKey?: string): NoteChange {
  const versions = headAndNow(top, path, atHead);
  const change = versions === null ? { reviewFields: true, ids: false } : kbFieldChanges(kbPath, versions.head, versions.now, notesFolders, idKey);
  return change.reviewFields || change.ids ? change : { reviewFields: true, ids: false };
}

/** `path` (from the repository's top; `kbPath` from the knowledge base's root) changed against HEAD only as kb changes a note. */
function onlyKbFieldsChanged(top: string, path: string, kbPath: string, notesFolders: readonly string[], atHead: AtHead, idKey?: string): boolean {
  const versions = headAndNow(top, path, atHead);
  return versions !== null && differOnlyInKbFields(kbPath, versions.head, versions.now, notesFolders, idKey);
}
