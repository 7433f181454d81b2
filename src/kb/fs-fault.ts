// The file-system faults kb meets outside its control (a full disk, a read-only mount, a
// failing device), said in one line with what to do about them. Programming errors are not
// faults: isFsFault tells them apart, so those still surface as bugs.

/** What each errno means for a kb user, and what to do about it. */
const FS_FAULTS: Record<string, string> = {
  ENOSPC: 'no space left on the device; free some space and run the command again',
  EDQUOT: 'disk quota exceeded; free some space and run the command again',
  EROFS: 'the file system is read-only; remount it read-write, or use a knowledge base (--kb) on a writable one',
  EACCES: 'permission denied; check the owner and mode of the file and its folder',
  EPERM: 'operation not permitted; check the owner and mode of the file and its folder',
  EIO: 'input/output error from the device; check the disk (dmesg), then run kb doctor',
  ENOTDIR: 'a file stands where a folder is expected; move it away',
  EISDIR: 'a folder stands where a file is expected; move it away',
  EEXIST: 'something already stands there (a file where kb makes a folder?); move it away',
  ENOENT: 'no such file or folder',
  EMFILE: 'too many open files; close some programs or raise the limit (ulimit -n)',
  ENFILE: 'too many open files on the system; try again later',
  EBUSY: 'the file or device is busy; try again',
  ETXTBSY: 'the file is busy; try again',
  ENAMETOOLONG: 'the file name is too long',
  ELOOP: 'too many levels of symbolic links',
  EFBIG: 'the file is too large for the file system',
  ESTALE: 'stale network file handle; remount the file system',
};

export interface FsFault {
  code: string;
  path?: string;
  syscall?: string;
}

/** Whether `error` is a file-system fault kb can explain (an errno error Node raised). */
export function isFsFault(error: unknown): error is Error & FsFault {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && Object.hasOwn(FS_FAULTS, code);
}

/** One line: the file, what went wrong, what to do. `path` names the file when the error does not. */
export function describeFsFault(error: FsFault, path?: string): string {
  const where = error.path ?? path;
  const what = `${FS_FAULTS[error.code] ?? 'file-system error'} (${error.code}${error.syscall ? ` on ${error.syscall}` : ''})`;
  return where ? `${where}: ${what}` : what;
}
