// kb's git merge driver for notes (`merge=kb-review` in .gitattributes): the three versions
// are made to agree on the four review fields (those of the side that changed them), then git
// merge-file merges the rest. Conflicts in the review fields vanish (kb rewrites them from the
// replayed log afterwards); any other conflict stays, with git's ordinary markers. A driver that
// fails says so in one line (MERGE_DRIVER_FAILED) and leaves %A whole, never cut short.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeFileAtomic } from '../../kb/atomic-write.ts';
import { describeFsFault, isFsFault } from '../../kb/fs-fault.ts';
import { gitDirOf } from '../../kb/git-operation.ts';
import { agreedReviewFields, withReviewFields } from '../../kb/review-fields-merge.ts';
import { git, gitComplaint } from './git.ts';

export const MERGE_DRIVER_NAME = 'kb-review';
export const MERGE_ATTRIBUTE_LINE = `*.md merge=${MERGE_DRIVER_NAME}`;

/**
 * The line the driver prints when it fails: kb sync finds it in git's output. git (2.39) counts
 * any failure of a driver as a conflict, so without it kb sync could not tell one from the other.
 */
export const MERGE_DRIVER_FAILED = 'kb merge-driver failed on ';

/**
 * git's %O (base), %A (ours, where the result goes) and %B (theirs) files, and %P (the
 * note's path). Returns the driver's exit status: 0 merged cleanly, 1 conflicts left, 2 failed
 * (its line, MERGE_DRIVER_FAILED, printed on stderr).
 */
export function runMergeDriver(basePath: string, oursPath: string, theirsPath: string, notePath: string): number {
  try {
    return mergeNoteVersions(basePath, oursPath, theirsPath, notePath);
  } catch (error) {
    const reason = isFsFault(error) ? describeFsFault({ code: error.code, syscall: error.syscall }) : error instanceof Error ? error.message : String(error);
    process.stderr.write(`${MERGE_DRIVER_FAILED}${notePath}: ${reason}\n`);
    return 2;
  }
}

/** The merge itself; throws when it cannot be done (a full disk). %A is then whole: as git wrote it, or agreed. */
export function mergeNoteVersions(basePath: string, oursPath: string, theirsPath: string, notePath: string): number {
  const versions = [basePath, oursPath, theirsPath].map((path) => ({ path, text: readFileSync(path, 'utf8') }));
  const values = agreedReviewFields(notePath, versions[0].text, versions[1].text, versions[2].text);
  if (values !== null) {
    // All three agree, ours included: the fields may be theirs (the side that changed them).
    for (const { path, text } of versions) {
      const agreed = withReviewFields(notePath, text, values);
      if (agreed !== text) writeWhole(path, agreed);
    }
  }
  const { ours: oursLabel, theirs: theirsLabel } = conflictLabels(process.cwd());
  // Merged to stdout, then written whole: git keeps %A as the note even when the driver fails,
  // and git merge-file writing %A itself left it cut short when the disk filled (found as a user).
  const merged = git(process.cwd(), ['merge-file', '-p', '-L', oursLabel, '-L', 'base', '-L', theirsLabel, oursPath, basePath, theirsPath], { allowFail: true });
  // Its status is the number of conflicts (at most 127); 255 (-1) when it could not merge.
  if (merged.signal !== null || merged.code < 0 || merged.code > 127) throw new Error(`git merge-file: ${gitComplaint(merged)}`);
  writeWhole(oursPath, merged.stdout);
  return merged.code === 0 ? 0 : 1;
}

/** Replaces one of git's copies whole or not at all (a temp file beside it, renamed over it). */
function writeWhole(path: string, text: string): void {
  const abs = resolve(path);
  writeFileAtomic(dirname(abs), abs, text);
}

/**
 * The conflict markers' labels, as git's own merge writes them: HEAD for the side checked out,
 * the incoming commit for the other. In kb sync's pull --rebase, HEAD is the remote's side and
 * the incoming commit is the user's own, being replayed (the markers said the note's path and
 * "theirs", which read as the remote's). git 2.44's %X and %Y would give these; older gits do not.
 */
function conflictLabels(worktree: string): { ours: string; theirs: string } {
  const gitDir = gitDirOf(worktree);
  const read = (name: string) => {
    try {
      return gitDir === null ? '' : readFileSync(join(gitDir, name), 'utf8');
    } catch {
      return '';
    }
  };
  // A rebase lists the commits it has picked, the one being replayed last: "pick <sha> <subject>".
  const picked = /^\w+ ([0-9a-f]{7,}) (.*)$/.exec(read('rebase-merge/done').trimEnd().split('\n').at(-1) ?? '');
  if (picked) return { ours: 'HEAD', theirs: `${picked[1].slice(0, 7)} (${picked[2]})` };
  const merging = /^[0-9a-f]{7,}/.exec(read('MERGE_HEAD'));
  return { ours: 'HEAD', theirs: merging ? merging[0].slice(0, 7) : 'theirs' };
}

/**
 * Installs the driver in a clone: git config (per clone, never committed) says how to run it;
 * `.gitattributes` in the knowledge base (committed) says which files use it. Returns true
 * when .gitattributes was written.
 */
export function installMergeDriver(root: string, kbCommand: string): boolean {
  git(root, ['config', `merge.${MERGE_DRIVER_NAME}.name`, 'kb: notes whose review fields both sides rewrote']);
  git(root, ['config', `merge.${MERGE_DRIVER_NAME}.driver`, `${kbCommand} merge-driver %O %A %B %P`]);
  const attributes = join(root, '.gitattributes');
  let text = '';
  try {
    text = readFileSync(attributes, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text.split(/\r?\n/).some((line) => line.trim() === MERGE_ATTRIBUTE_LINE)) return false;
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  writeFileSync(attributes, `${text}${separator}# kb: merge notes' review fields (kb sync --help)\n${MERGE_ATTRIBUTE_LINE}\n`);
  return true;
}

/** The command git runs for the driver: this Node and this kb, quoted for git's shell. */
export function currentKbCommand(): string {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  return `${quote(process.execPath)} ${quote(process.argv[1])}`;
}
