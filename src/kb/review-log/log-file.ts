// Reading the review log files, any device's. Reads are incremental: from the byte offset the
// database remembers, complete lines only (a half-written last line waits for its newline).
// This device's appends are device-log.ts.
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { parseEvent, type ReviewEvent } from './event.ts';

export const LOG_SUFFIX = '.jsonl';

/** The log file of one device in a log folder. */
export function deviceLogPath(folder: string, device: string): string {
  return join(folder, `${device}${LOG_SUFFIX}`);
}

/** The log files in a folder (none when it does not exist), sorted by name. */
export function listLogFiles(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.filter((name) => name.endsWith(LOG_SUFFIX) && !name.startsWith('.')).sort();
}

export interface LogLine {
  /** Byte offset of the line in its file (for messages that name it). */
  byte: number;
  event: ReviewEvent | { error: string };
}

export interface LogRead {
  lines: LogLine[];
  /** Where the next read starts: just after the last complete line. */
  offset: number;
  size: number;
}

/** The complete lines of a log file from byte `offset` on. */
export function readLogFrom(path: string, offset: number): LogRead {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    // A file shorter than what was read before was rewritten (not appended to): read it all again.
    const start = size < offset ? 0 : offset;
    const buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    const lines: LogLine[] = [];
    let lineStart = 0;
    // As kb writes them (ids, dates, numbers), all ASCII: decoded at once, a character a byte,
    // rather than line by line (a clone's first open reads 100,000 lines).
    const ascii = isAscii(buffer) ? buffer.toString('latin1') : null;
    for (let at = buffer.indexOf(0x0a); at !== -1; at = buffer.indexOf(0x0a, lineStart)) {
      const text = (ascii !== null ? ascii.slice(lineStart, at) : buffer.toString('utf8', lineStart, at)).trim();
      if (text !== '') lines.push({ byte: start + lineStart, event: parseEvent(text) });
      lineStart = at + 1;
    }
    return { lines, offset: start + lineStart, size };
  } finally {
    closeSync(fd);
  }
}

/**
 * The last complete line of a log file that is an event of `device`, read backwards from the
 * end (a chunk or two, not the whole file), or null when there is none (or no file). A device
 * appends its events in their order, so this is the latest of its events the file holds.
 */
export function lastEventOf(path: string, device: string): ReviewEvent | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    // `rest`: the bytes after `start` not looked at yet (a line cut by the chunk boundary).
    let start = fstatSync(fd).size;
    let rest = Buffer.alloc(0);
    let atEnd = true;
    while (start > 0) {
      const from = Math.max(0, start - 65_536);
      const chunk = Buffer.alloc(start - from);
      readSync(fd, chunk, 0, chunk.length, from);
      start = from;
      let bytes = Buffer.concat([chunk, rest]);
      if (atEnd) {
        // A last line without its newline is half written: not a line yet.
        const newline = bytes.lastIndexOf(0x0a);
        if (newline === -1 && start > 0) {
          rest = bytes;
          continue;
        }
        bytes = bytes.subarray(0, newline + 1);
        atEnd = false;
      }
      // Before the first newline, a line that may begin in the chunk before: read with it, unless the file begins here.
      const cut = start === 0 ? 0 : bytes.indexOf(0x0a) + 1;
      const lines = bytes.subarray(cut).toString('utf8').split('\n');
      for (let at = lines.length - 1; at >= 0; at--) {
        const line = lines[at].trim();
        if (line === '') continue;
        const event = parseEvent(line);
        if (!('error' in event) && event.device === device) return event;
      }
      rest = bytes.subarray(0, cut);
    }
    return null;
  } finally {
    closeSync(fd);
  }
}
