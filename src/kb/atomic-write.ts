// Writes a knowledge-base file the only way kb writes one: inside the knowledge base, never
// through a symbolic link, only if the file is still what was read, and atomically (temp
// file in the same folder, fsync, rename, fsync the folder) so a crash leaves the old or the
// new file, never half of one.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, linkSync, lstatSync, openSync, readFileSync, readSync, realpathSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { FileStamp } from '../model/knowledge-base.ts';

export class FileChangedError extends Error {
  readonly path: string;
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`${path} changed since kb read it (${reason}); not overwritten`);
    this.name = 'FileChangedError';
    this.path = path;
    this.reason = reason;
  }
}

export class OutsideKnowledgeBaseError extends Error {
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}; kb writes only regular files inside the knowledge base`);
    this.name = 'OutsideKnowledgeBaseError';
    this.path = path;
  }
}

/** What the file looked like when read: its size and mtime (and hash), or its exact content. */
export type ExpectedFile = { size: number; mtimeMs: number; sha256?: string } | string | Buffer;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Both paths real (absolute, normalised): a prefix test is exact, where path.relative costs ~9 µs a call (a cold scan makes thousands). */
function isInside(rootReal: string, path: string): boolean {
  const prefix = rootReal.endsWith(sep) ? rootReal : rootReal + sep;
  // Windows paths compare without case, as path.relative compares them there.
  const [inRoot, candidate] = process.platform === 'win32' ? [prefix.toLowerCase(), path.toLowerCase()] : [prefix, path];
  return candidate.length > inRoot.length && candidate.startsWith(inRoot);
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Test hooks into a write: `beforeRename` runs in the window between the last check and the swap. */
export interface WriteHooks {
  beforeRename?: () => void;
}

/**
 * A temp file written beside its target, not yet swapped in. Plain data once its descriptor is
 * closed, so a scan worker can stage it and the main thread finish it.
 */
export interface StagedWrite {
  abs: string;
  target: string;
  folder: string;
  temp: string;
  /** Open until the temp file is fsynced (or closed unsynced, for a batch to fsync later). */
  fd: number | null;
  /** The new file's size, hash and mtime (a rename keeps a file's mtime: its stamp once swapped in). */
  size: number;
  sha256: string;
  mtimeMs: number;
  expect?: ExpectedFile;
}

/** kb's own temp files: `.<name>.<pid>.<8 hex>.kb-tmp`, beside the file they replace. */
export const TEMP_FILE_PATTERN = /^\.(.+)\.(\d+)\.[0-9a-f]{8}\.kb-tmp$/;
/** The same as a .gitignore line: one left by a killed kb must not be committed by a `git add -A`. */
export const TEMP_FILE_GLOB = '.*.kb-tmp';

// A random start and a counter, rather than random bytes per file (a cold scan names tens of
// thousands); each thread draws its own start, and 'wx' refuses a name that is taken anyway.
let tempCounter = randomBytes(4).readUInt32BE();

function tempPath(folder: string, name: string): string {
  tempCounter = (tempCounter + 1) >>> 0;
  return join(folder, `.${name}.${process.pid}.${tempCounter.toString(16).padStart(8, '0')}.kb-tmp`);
}

/**
 * Replaces `abs` with `data`. Throws OutsideKnowledgeBaseError for a path (or a link) leading
 * out of `root` or a symbolic link, FileChangedError when the file is no longer as `expect`
 * says (also when it changed during the swap itself: the other version is put back). A file
 * that starts with a BOM keeps it. The file's mode is kept. Returns the new file's stamp.
 */
export function writeFileAtomic(root: string, abs: string, data: string | Buffer, expect?: ExpectedFile, hooks: WriteHooks = {}): FileStamp {
  const staged = stageWrite(root, abs, data, expect);
  try {
    fsyncSync(staged.fd as number);
  } catch (error) {
    discardStaged(staged);
    throw namePath(error, abs);
  }
  closeStaged(staged);
  const stamp = swapIn(staged, hooks);
  syncFolder(staged.folder);
  return stamp;
}

/** What a caller that writes many files (a scan) already knows, so each write need not find it out again. */
export interface StageOptions {
  /** realpathSync.native(root), resolved once for the batch. */
  rootReal?: string;
  /**
   * The file's bytes as the caller just read them (BOM kept): not read again here. The check
   * against `expect` is then left to swapIn, which makes it anyway, right before the rename.
   */
  readBytes?: Buffer;
  /**
   * The file's mode as read with readBytes (from the descriptor it was read through): the
   * target is then not stat'ed again here. swapIn refuses a symbolic link or a non-file anyway.
   */
  mode?: number;
  /** Real paths of folders already resolved in this batch (a scan writes thousands of files in a few folders). */
  realFolders?: Map<string, string>;
}

/**
 * Checks the target and writes `data` to a temp file beside it, left open and not yet
 * fsynced: the caller fsyncs (many at once, for a batch), then swaps it in with swapIn.
 */
export function stageWrite(root: string, abs: string, data: string | Buffer, expect?: ExpectedFile, options: StageOptions = {}): StagedWrite {
  const rootReal = options.rootReal ?? realpathSync.native(root);
  const dirReal = realFolder(abs, options.realFolders);
  if (!isInside(rootReal, join(dirReal, basename(abs)))) throw new OutsideKnowledgeBaseError(abs, 'the path resolves outside the knowledge base');
  const target = join(dirReal, basename(abs));
  const known = options.readBytes !== undefined && options.mode !== undefined;
  const current = known ? null : lstatOrNull(target);
  if (current?.isSymbolicLink()) throw new OutsideKnowledgeBaseError(abs, 'it is a symbolic link, which kb never writes through');
  if (current && !current.isFile()) throw new OutsideKnowledgeBaseError(abs, 'it is not a regular file');
  const mode = known ? (options.mode as number) & 0o7777 : current ? current.mode & 0o7777 : 0o644;

  let bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const onDisk = options.readBytes ?? (current ? readFileSync(target) : null);
  if (expect !== undefined && options.readBytes === undefined) checkUnchanged(abs, current, onDisk, expect);
  if (onDisk && onDisk.subarray(0, 3).equals(BOM) && !bytes.subarray(0, 3).equals(BOM)) bytes = Buffer.concat([BOM, bytes]);

  const temp = tempPath(dirReal, basename(abs));
  let fd: number;
  try {
    // Created with the file's own mode (the umask may take bits off: put back below).
    fd = openSync(temp, 'wx', mode);
  } catch (error) {
    throw namePath(error, abs);
  }
  const staged: StagedWrite = { abs, target, folder: dirReal, temp, fd, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), mtimeMs: 0, expect };
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    const stats = fstatSync(fd);
    if ((stats.mode & 0o7777) !== mode) fchmodSync(fd, mode);
    staged.mtimeMs = stats.mtimeMs;
  } catch (error) {
    discardStaged(staged);
    throw namePath(error, abs);
  }
  return staged;
}

/** The real path of the folder holding `abs`, resolved once per batch where the caller keeps `cache`. */
function realFolder(abs: string, cache?: Map<string, string>): string {
  const folder = dirname(abs);
  const cached = cache?.get(folder);
  if (cached !== undefined) return cached;
  let real: string;
  try {
    real = realpathSync.native(folder);
  } catch (error) {
    throw new OutsideKnowledgeBaseError(abs, `its folder cannot be resolved (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  cache?.set(folder, real);
  return real;
}

export function closeStaged(staged: StagedWrite): void {
  if (staged.fd === null) return;
  const fd = staged.fd;
  staged.fd = null;
  closeSync(fd);
}

/** Removes a staged temp file that will not be swapped in. */
export function discardStaged(staged: StagedWrite): void {
  try {
    closeStaged(staged);
  } catch {
    // closing a file being thrown away
  }
  unlinkQuietly(staged.temp);
}

/**
 * Swaps a staged (fsynced, closed) temp file in for its target; the caller fsyncs the folder.
 * The file being replaced is held by a second name (a hard link) across the swap and read
 * through one descriptor on it, before the rename and again after: an outside write that
 * lands between kb's last check and the rename is caught and the writer's version put back:
 * kb's write is then refused, theirs is never lost.
 */
export function swapIn(staged: StagedWrite, hooks: WriteHooks = {}): FileStamp {
  const { abs, target, expect } = staged;
  let keep: string | null = null;
  let held: HeldFile | null = null;
  try {
    try {
      if (expect !== undefined) {
        keep = holdCurrent(staged);
        // Checked again right before the swap: the window for a concurrent edit stays tiny.
        held = keep === null ? null : openHeld(abs, keep);
        if (held) checkUnchanged(abs, held.stats, held.bytes, expect);
        else checkTarget(abs, target, expect);
        hooks.beforeRename?.();
        // The name must still lead to the file checked: a symbolic link or a file saved over it
        // (an editor's own rename) is someone else's, and theirs stands.
        if (held && lstatOrNull(target)?.ino !== held.stats.ino) throw new FileChangedError(abs, 'it was replaced while kb wrote it');
      } else {
        hooks.beforeRename?.();
      }
      renameSync(staged.temp, target);
    } catch (error) {
      unlinkQuietly(staged.temp);
      if (keep !== null) unlinkQuietly(keep);
      throw namePath(error, abs);
    }
    if (held) {
      // The file just replaced, read again through the same descriptor: written to since the check?
      const after = fstatSync(held.fd);
      if (after.size !== held.stats.size || after.mtimeMs !== held.stats.mtimeMs || !readAll(held.fd, after.size).equals(held.bytes)) {
        renameSync(held.path, target);
        syncFolder(staged.folder);
        throw new FileChangedError(abs, 'it was written to while kb replaced it; that version was put back');
      }
      unlinkQuietly(held.path);
    }
  } finally {
    if (held) closeSync(held.fd);
  }
  return { size: staged.size, mtimeMs: staged.mtimeMs, sha256: staged.sha256 };
}

/** The file about to be replaced, open through its second name (`path`). */
interface HeldFile {
  path: string;
  fd: number;
  stats: Stats;
  bytes: Buffer;
}

function openHeld(abs: string, keep: string): HeldFile {
  let fd: number;
  try {
    fd = openSync(keep, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    // link() names a symbolic link itself, not what it points to.
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new OutsideKnowledgeBaseError(abs, 'it became a symbolic link');
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new OutsideKnowledgeBaseError(abs, 'it is not a regular file');
    return { path: keep, fd, stats, bytes: readAll(fd, stats.size) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Where the file has no second name (no hard links here, or it is gone): check it by its own. */
function checkTarget(abs: string, target: string, expect: ExpectedFile): void {
  const now = lstatOrNull(target);
  if (now?.isSymbolicLink()) throw new OutsideKnowledgeBaseError(abs, 'it became a symbolic link');
  checkUnchanged(abs, now, now ? readFileSync(target) : null, expect);
}

/** A file's first `size` bytes through an open descriptor (positioned reads: the descriptor is read twice). */
function readAll(fd: number, size: number): Buffer {
  const bytes = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const n = readSync(fd, bytes, filled, size - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return bytes.subarray(0, filled);
}

/** A second name for the file about to be replaced; null where the file system has no hard links. */
function holdCurrent(staged: StagedWrite): string | null {
  const keep = tempPath(staged.folder, basename(staged.abs));
  try {
    linkSync(staged.target, keep);
    return keep;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null; // gone: the check that follows refuses the write
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'EMLINK' || code === 'EXDEV') return null;
    throw error;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already renamed, removed or never created
  }
}

/** An errno error from a temp file or a descriptor names the file kb was writing instead. */
function namePath(error: unknown, abs: string): unknown {
  if (error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string') {
    const errno = error as NodeJS.ErrnoException;
    if (errno.path === undefined || TEMP_FILE_PATTERN.test(basename(errno.path))) errno.path = abs;
  }
  return error;
}

function checkUnchanged(abs: string, stats: Stats | null, onDisk: Buffer | null, expect: ExpectedFile): void {
  if (!stats || !onDisk) throw new FileChangedError(abs, 'it no longer exists');
  if (typeof expect === 'string' || Buffer.isBuffer(expect)) {
    const wanted = typeof expect === 'string' ? Buffer.from(expect, 'utf8') : expect;
    // Text read for parsing has its BOM stripped: compare without it then.
    const actual = onDisk.subarray(0, 3).equals(BOM) && !wanted.subarray(0, 3).equals(BOM) ? onDisk.subarray(3) : onDisk;
    if (!actual.equals(wanted)) throw new FileChangedError(abs, 'its content differs');
    return;
  }
  if (stats.size !== expect.size) throw new FileChangedError(abs, `size ${stats.size} bytes, was ${expect.size}`);
  // Stored mtimes may have been truncated to whole milliseconds.
  if (Math.trunc(stats.mtimeMs) !== Math.trunc(expect.mtimeMs)) throw new FileChangedError(abs, 'modification time differs');
  if (expect.sha256 !== undefined && createHash('sha256').update(onDisk).digest('hex') !== expect.sha256) {
    throw new FileChangedError(abs, 'its content differs');
  }
}

/** fsync the folder so the rename itself survives a crash (not supported everywhere). */
export function syncFolder(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // some file systems refuse fsync on a folder; the rename is still atomic
  } finally {
    closeSync(fd);
  }
}
