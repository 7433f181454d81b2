// Write-back: after a review, a note's frontmatter mirrors its FSRS state in four fields,
//   last_reviewed  the review day of the last review ('YYYY-MM-DD', as in the seed notes), or null
//   next_review    the review day the card is next due
//   review_count   reviews so far (FSRS reps)
//   mastery_level  recall probability 30 days after the last review
// (what they say for a state: src/srs/review-fields.ts)
// Every other byte stays (updateFrontmatterFields edits only those values), the write is
// atomic and refused when the file changed since it was read. The database is the truth:
// a refused write-back loses nothing, `kb doctor --fix` rewrites the fields from it.
//
// Each write also yields a FileRestore, the smallest text patch that turns the new file
// back into the old one, so undo restores the exact bytes (quotes, `0.0`, comments),
// not a re-rendering of the earlier values.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { closeStaged, discardStaged, stageWrite, swapIn, syncFolder, writeFileAtomic, type StagedWrite } from './atomic-write.ts';
import { makeStagedDurable } from './durable-batch.ts';
import type { FileStamp } from '../model/knowledge-base.ts';
import { DEFAULT_ID_KEY } from './card-meta.ts';
import { parseFrontmatter } from './frontmatter.ts';
import { describeFsFault, isFsFault } from './fs-fault.ts';
import { updateFrontmatterFields } from './frontmatter-edit.ts';
import { readKnowledgeFile } from './read-file.ts';
import type { ReviewFields } from '../srs/review-fields.ts';
import type { KbPath } from '../model/knowledge-base.ts';

/** Turns the rewritten file back into the one it replaced: text[start, length - tail) becomes `removed`. */
export interface FileRestore {
  path: KbPath;
  /** sha256 of the file as write-back left it: undo touches only that exact file. */
  sha256: string;
  start: number;
  tail: number;
  removed: string;
}

/** A note kb rewrote: the file as it was read, and as it is now (for the scan's records). */
export interface Rewrite {
  path: KbPath;
  before: FileStamp;
  after: FileStamp;
}

export type WritebackResult =
  | { status: 'written'; restore: FileRestore; rewrite: Rewrite }
  | { status: 'restored'; rewrite: Rewrite }
  | { status: 'unchanged' }
  | {
      status: 'refused';
      reason: string;
      /** The file itself stands in the way (a YAML anchor on a field, frontmatter kb cannot read): kb doctor --fix cannot write it until it is edited. */
      untilEdited?: true;
      /** An undo's restore found the note edited since the rating: its old bytes cannot go back over the edit. */
      editedSince?: true;
      /** The file changed between kb's read and its write (another kb's write-back, or an edit): read it again to write it. */
      changed?: true;
      /** Held while git merges or rebases the knowledge base: the first kb command after it writes the fields itself. */
      heldByGit?: true;
      /** The card's file is gone from where the database has it, or holds another card (moved, by git or by hand): a scan finds where it went. */
      moved?: true;
    };

/**
 * What comes of a refused write-back, after its reason: that the rating (or undo) is stored,
 * and when the fields are written. kb rate, kb undo and kb review's status line say the same
 * (the screen said only "note not updated: …", with no word that the rating stood or how the
 * note would be mended: found as a user).
 */
export function refusedWritebackNote(result: Extract<WritebackResult, { status: 'refused' }>, stored: 'rating' | 'undo'): string {
  // Held by git's operation, the reason already says when the note is written (by kb itself).
  if (result.heldByGit) return `the ${stored} is stored`;
  if (result.untilEdited) return `the ${stored} is stored (once the file is fixed, kb doctor --fix writes the fields)`;
  // The fields wait in the database (deferred-fields.ts) for the scan that finds the note.
  if (result.moved) return `the ${stored} is stored (the next kb command that scans writes the fields where the note went)`;
  return `the ${stored} is stored (kb doctor --fix writes the fields later)`;
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The patch from `after` back to `before`: only the span between the first and last differing character. */
export function restoreFor(path: KbPath, before: string, after: string): FileRestore {
  let start = 0;
  const limit = Math.min(before.length, after.length);
  while (start < limit && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let tail = 0;
  while (tail < limit - start && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  return { path, sha256: sha256(after), start, tail, removed: before.slice(start, before.length - tail) };
}

export function applyRestore(text: string, restore: FileRestore): string {
  return text.slice(0, restore.start) + restore.removed + text.slice(text.length - restore.tail);
}

export interface ReadNote {
  path: KbPath;
  abs: string;
  raw: string;
  expect: FileStamp;
}

export const WRITE_PROTECTED = 'the file is read-only (no write permission)';

/**
 * A note made read-only (chmod a-w) is one its owner protects: the atomic rename would replace
 * it all the same (and root may write anything), so kb's write-backs and kb doctor --fix leave it alone.
 */
export function isWriteProtected(stat: { mode: number }): boolean {
  return (stat.mode & 0o222) === 0;
}

function readNote(root: string, path: KbPath): ReadNote | { refused: string; untilEdited?: true; moved?: true } {
  const abs = join(root, path);
  let mtimeMs: number;
  try {
    // Stat before reading: a change in between then shows as a mismatch, never goes unseen.
    const stat = statSync(abs);
    mtimeMs = stat.mtimeMs;
    if (isWriteProtected(stat)) return { refused: `${path}: ${WRITE_PROTECTED}`, untilEdited: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Renamed or deleted while kb review showed it: "cannot read it (ENOENT)" said neither.
    if (code === 'ENOENT') return { refused: `${path}: moved or deleted since kb read it (ENOENT)`, moved: true };
    return { refused: `${path}: cannot read it (${code ?? error})` };
  }
  const file = readKnowledgeFile(abs, path);
  if ('diagnostic' in file) return { refused: `${path}: ${file.diagnostic.message}`, untilEdited: true };
  // The hash only when asked for, by a write or a restore: a clone's first open reads every
  // reviewed note to find its fields already right (prepareWriteback: 'unchanged'), and hashed
  // each one for nothing.
  const { bytes } = file;
  let expect: FileStamp | undefined;
  return {
    path,
    abs,
    raw: file.raw,
    get expect() {
      return (expect ??= { size: bytes.length, mtimeMs, sha256: sha256(bytes) });
    },
  };
}

function write(root: string, note: ReadNote, text: string): { refused: string; changed?: true } | Rewrite {
  try {
    return { path: note.path, before: note.expect, after: writeFileAtomic(root, note.abs, text, note.expect) };
  } catch (error) {
    return refusedWrite(error, note);
  }
}

/** A write that failed, as the refusal it is; anything else (a bug) is thrown on. */
function refusedWrite(error: unknown, note: ReadNote): { refused: string; changed?: true } {
  const name = (error as Error).name;
  if (name === 'FileChangedError') return { refused: (error as Error).message, changed: true };
  if (name === 'OutsideKnowledgeBaseError') return { refused: (error as Error).message };
  // A full disk or a read-only mount: the rating is stored all the same, the file waits for kb doctor --fix.
  if (isFsFault(error)) return { refused: describeFsFault({ code: error.code, syscall: error.syscall }, note.path) };
  throw error;
}

/** A write-back read and computed, not yet written: the rating's transaction records `restore` first. */
export interface PreparedWriteback {
  note: ReadNote;
  text: string;
  restore: FileRestore;
}

/**
 * Reads the note holding card `cardId` and computes its new text; refuses when the file no
 * longer holds the card (under `idKey`, kb.json's key for a note's id).
 */
export function prepareWriteback(
  root: string,
  path: KbPath,
  cardId: string,
  fields: ReviewFields,
  idKey = DEFAULT_ID_KEY,
): PreparedWriteback | Exclude<WritebackResult, { status: 'written' }> {
  const note = readNote(root, path);
  if ('refused' in note) return { status: 'refused', reason: note.refused, ...(note.untilEdited ? { untilEdited: true } : {}), ...(note.moved ? { moved: true } : {}) };
  const frontmatter = parseFrontmatter(path, note.raw);
  const broken = frontmatter.data === null ? frontmatter.diagnostics.find((d) => d.severity === 'error') : undefined;
  // A frontmatter that does not parse still holds the card: say what is wrong with it, not that the card moved.
  if (broken) return { status: 'refused', reason: `${path}:${broken.line}: ${broken.message}`, untilEdited: true };
  const data = frontmatter.data;
  if (data === null || !Object.hasOwn(data, idKey) || data[idKey] !== cardId) {
    return { status: 'refused', reason: `${path}: the file no longer holds card ${cardId} (run kb scan)`, moved: true };
  }
  let text: string;
  try {
    text = updateFrontmatterFields(note.raw, { ...fields });
  } catch (error) {
    if ((error as Error).name === 'FrontmatterEditError') return { status: 'refused', reason: `${path}: ${(error as Error).message}`, untilEdited: true };
    throw error;
  }
  if (text === note.raw) return { status: 'unchanged' };
  return { note, text, restore: restoreFor(path, note.raw, text) };
}

/** Writes a prepared write-back, unless the file changed since it was read. */
export function commitWriteback(root: string, prepared: PreparedWriteback): WritebackResult {
  const written = write(root, prepared.note, prepared.text);
  if ('refused' in written) return refusal(written);
  return { status: 'written', restore: prepared.restore, rewrite: written };
}

/**
 * Writes many prepared write-backs (a replay's, after kb import --revlog or a merge) as a batch,
 * as a scan writes its ids (id-writes.ts): each note is still replaced atomically on its own
 * (temp file, made durable, rename), but the temp files are all written first, then made durable
 * together (from `syncFileSystemFrom` of them one sync of their file system, else a fsync each),
 * then renamed in one by one (each checked right before its rename, as commitWriteback checks),
 * and each folder is fsynced once at the end. A fsync per note and per folder made a 5,000-note
 * import wait on the disk for more than half its time. A kill leaves each note old or new, never
 * half, and at worst stray temp files that kb doctor --fix removes; when this returns, every
 * note written is on disk. The results are in the order of `prepared`.
 */
export function commitWritebacks(root: string, prepared: readonly PreparedWriteback[], options: { syncFileSystemFrom?: number } = {}): WritebackResult[] {
  const results: WritebackResult[] = new Array(prepared.length);
  const staged: Array<{ index: number; write: StagedWrite }> = [];
  try {
    prepared.forEach((one, index) => {
      try {
        const write = stageWrite(root, one.note.abs, one.text, one.note.expect);
        staged.push({ index, write });
        // Closed at once: thousands of open temp files would run out of descriptors; the sync below goes by path.
        closeStaged(write);
      } catch (error) {
        results[index] = refusal(refusedWrite(error, one.note));
      }
    });
    const failed = makeStagedDurable(staged.map(({ write }) => write), options);
    const folders = new Set<string>();
    for (const [k, { index, write }] of staged.entries()) {
      const one = prepared[index];
      const fault = failed.get(k);
      try {
        if (fault !== undefined) throw fault;
        const after = swapIn(write);
        folders.add(write.folder);
        results[index] = { status: 'written', restore: one.restore, rewrite: { path: one.note.path, before: one.note.expect, after } };
      } catch (error) {
        discardStaged(write);
        results[index] = refusal(refusedWrite(error, one.note));
      }
    }
    for (const folder of folders) syncFolder(folder);
    staged.length = 0;
  } finally {
    // Thrown out of the batch (a bug): the temp files not renamed in go (one already renamed is not found again).
    for (const { write } of staged) discardStaged(write);
  }
  return results;
}

/** Undo of a write-back: puts the old bytes back if the file is still exactly what write-back left. */
export function restoreNote(root: string, restore: FileRestore): WritebackResult {
  const note = readNote(root, restore.path);
  if ('refused' in note) return { status: 'refused', reason: note.refused, ...(note.moved ? { moved: true } : {}) };
  if (note.expect.sha256 !== restore.sha256) {
    return { status: 'refused', reason: `${restore.path}: changed since the rating; its frontmatter was left as it is (kb doctor --fix rewrites it)`, editedSince: true };
  }
  const written = write(root, note, applyRestore(note.raw, restore));
  if ('refused' in written) return refusal(written);
  return { status: 'restored', rewrite: written };
}

function refusal(written: { refused: string; changed?: true }): WritebackResult {
  return { status: 'refused', reason: written.refused, ...(written.changed ? { changed: true } : {}) };
}

