// Whether a card's file changed on disk since kb read it, told by one stat (its size and mtime,
// as kb scan records them): cheap enough to ask each time a card comes up or is revealed.
import { statSync } from 'node:fs';

/** A file's size and mtime in ms, truncated as kb scan records it. */
export function stampOf(size: number, mtimeMs: number): string {
  return `${size}:${Math.trunc(mtimeMs)}`;
}

/**
 * The file's stamp now, or null when it is gone (deleted, or moved: only a scan can tell which).
 * A stat failing otherwise (a folder made unreadable) gives a stamp no scan records, so the file
 * is read again and the scan says what is wrong with it.
 */
export function statStamp(abs: string): string | null {
  try {
    const stats = statSync(abs);
    return stampOf(stats.size, stats.mtimeMs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    return `unreadable:${code ?? 'error'}`;
  }
}
