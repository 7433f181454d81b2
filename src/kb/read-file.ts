// Reads one knowledge-base file as text, refusing what is not a Markdown text file.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { Diagnostic, KbPath } from '../model/knowledge-base.ts';

/** Bigger files are not notes someone wrote by hand; reading them would only slow a scan. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;

const UTF8_BOM = '\uFEFF';

export interface KnowledgeFileText {
  /** The text to parse: decoded UTF-8 with a leading BOM removed. */
  text: string;
  /** The file's exact bytes (keeps the BOM, for hashing and byte-exact rewrites). */
  bytes: Buffer;
  /** The decoded text with the BOM kept: edit this one before writing the file back. */
  raw: string;
  bom: boolean;
  /** The file's mode, from the descriptor it was read through (a rewrite keeps it). */
  mode: number;
}

export function readKnowledgeFile(abs: string, path: KbPath): KnowledgeFileText | { diagnostic: Diagnostic } {
  const warn = (message: string) => ({ diagnostic: { severity: 'warning' as const, file: path, message } });
  let fd: number;
  try {
    // Non-blocking, so a FIFO put where a note was cannot hang kb; regular files ignore the flag.
    fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return warn(`cannot open the file (${(error as NodeJS.ErrnoException).code ?? String(error)}); skipped`);
  }
  let bytes: Buffer;
  let mode: number;
  try {
    // Size from the open descriptor, so a file swapped between stat and read is still bounded.
    const stats = fstatSync(fd);
    if (!stats.isFile()) return warn('not a regular file; skipped');
    mode = stats.mode;
    const size = stats.size;
    if (size > MAX_FILE_BYTES) {
      return warn(`file is ${(size / 1024 / 1024).toFixed(1)} MB, over the ${MAX_FILE_BYTES / 1024 / 1024} MB limit; skipped`);
    }
    bytes = Buffer.alloc(size);
    let filled = 0;
    while (filled < size) {
      const n = readSync(fd, bytes, filled, size - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    bytes = bytes.subarray(0, filled);
  } catch (error) {
    return warn(`cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)}); skipped`);
  } finally {
    closeSync(fd);
  }
  if (bytes.includes(0)) return warn('binary file (contains NUL bytes); skipped');
  let raw: string;
  try {
    raw = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return warn(`not valid UTF-8 (first bad byte at offset ${firstInvalidUtf8Offset(bytes)}); skipped`);
  }
  const bom = raw.startsWith(UTF8_BOM);
  return { text: bom ? raw.slice(1) : raw, bytes, raw, bom, mode };
}

/** Where decoding first fails, so the warning points at something a user can find. */
function firstInvalidUtf8Offset(bytes: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let low = 0;
  let high = bytes.length;
  // The longest decodable prefix, by bisection (decoding a truncated final character fails too,
  // so the answer may be up to three bytes early: close enough to point at the spot).
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    try {
      decoder.decode(bytes.subarray(0, mid));
      low = mid;
    } catch {
      high = mid - 1;
    }
  }
  return low;
}

/** Strips a leading UTF-8 BOM: every parser in kb sees text without it. */
export function stripBom(text: string): string {
  return text.startsWith(UTF8_BOM) ? text.slice(1) : text;
}
