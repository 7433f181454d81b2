// Writes a knowledge-base file the only way kb writes one: inside the knowledge base, never
// through a symbolic link, only if the file is still what was read, and atomically (temp
// file in the same folder, fsync, rename, fsync the folder) so a crash leaves the old or the
// new file, never half of one.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, lstatSync, openSync, readFileSync, realpathSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';

export class FileChangedError extends Error {
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`${path} changed since kb read it (${reason}); not overwritten`);
    this.name = 'FileChangedError';
    this.path = path;
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

/** A file as it stands on disk: what kb scan records of it. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  sha256: string;
}

/** What the file looked like when read: its size and mtime (and hash), or its exact content. */
export type ExpectedFile = { size: number; mtimeMs: number; sha256?: string } | string | Buffer;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Replaces `abs` with `data`. Throws OutsideKnowledgeBaseError for a path (or a link) leading
 * out of `root` or a symbolic link, FileChangedError when the file is no longer as `expect`
 * says. A file that starts with a BOM keeps it. The file's mode is kept. Returns the new
 * file's stamp.
 */
export function writeFileAtomic(root: string, abs: string, data: string | Buffer, expect?: ExpectedFile): FileStamp {
  const rootReal = realpathSync(root);
  let dirReal: string;
  try {
    dirReal = realpathSync(dirname(abs));
  } catch (error) {
    throw new OutsideKnowledgeBaseError(abs, `its folder cannot be resolved (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  if (!isInside(rootReal, join(dirReal, basename(abs)))) throw new OutsideKnowledgeBaseError(abs, 'the path resolves outside the knowledge base');
  const target = join(dirReal, basename(abs));
  const current = lstatOrNull(target);
  if (current?.isSymbolicLink()) throw new OutsideKnowledgeBaseError(abs, 'it is a symbolic link, which kb never writes through');
  if (current && !current.isFile()) throw new OutsideKnowledgeBaseError(abs, 'it is not a regular file');

  let bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const onDisk = current ? readFileSync(target) : null;
  if (expect !== undefined) checkUnchanged(abs, current, onDisk, expect);
  if (onDisk && onDisk.subarray(0, 3).equals(BOM) && !bytes.subarray(0, 3).equals(BOM)) bytes = Buffer.concat([BOM, bytes]);

  const temp = join(dirReal, `.${basename(abs)}.${process.pid}.${randomBytes(4).toString('hex')}.kb-tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    try {
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      fchmodSync(fd, current ? current.mode & 0o7777 : 0o644);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // Checked again right before the swap: the window for a concurrent edit stays tiny.
    if (expect !== undefined) {
      const now = lstatOrNull(target);
      if (now?.isSymbolicLink()) throw new OutsideKnowledgeBaseError(abs, 'it became a symbolic link');
      checkUnchanged(abs, now, now ? readFileSync(target) : null, expect);
    }
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // already renamed or never created
    }
    throw error;
  }
  syncFolder(dirReal);
  return { size: bytes.length, mtimeMs: lstatSync(target).mtimeMs, sha256: createHash('sha256').update(bytes).digest('hex') };
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
function syncFolder(dir: string): void {
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
