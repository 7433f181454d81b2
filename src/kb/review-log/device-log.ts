// This device's review log, reviews/<device>.jsonl, as kb writes it. Each event of this device
// (a rating, an undo, a card action, an import) is stored in the database and appended to the
// file, fsynced, inside the transaction that changes the card, so a stored event is always in
// the file: a line whose transaction never committed (kill -9 between the two) is read back and
// applied at the next start, and a transaction that fails cuts its lines off again. Reading
// every device's file, and replaying what they say, is app/review-log/review-log.ts.
import { closeSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import { deviceId, type KbDatabase } from '../../store/db.ts';
import { compareEventKeys, reviewEventQueries, type ReviewEventQueries } from '../../store/review-events.ts';
import { deviceEventWrites } from '../../store/review-writes.ts';
import type { FsrsColumns } from '../../model/fsrs-state.ts';
import { reviewDayLabel } from '../../srs/study-day.ts';
import { syncFolder } from '../atomic-write.ts';
import { isFsFault } from '../fs-fault.ts';
import { gitOperationInProgress } from '../git-operation.ts';
import { eventLine, eventRow, formatEvent, seedOf, type ReviewEvent, type SeedRow } from './event.ts';
import { deviceLogPath, lastEventOf } from './log-file.ts';

/** What an event says, before kb gives it an id place and a day. */
export interface NewEvent {
  id: string;
  card: string;
  at: number;
  kind: ReviewEvent['kind'];
  rating?: number;
  duration?: number;
  target?: string;
  reset?: boolean;
  /**
   * An imported history that begins when the card was new (a revlog row in state New): its
   * replay starts from a new card, not from the row the note's frontmatter seeded, which already
   * counts those reviews (an export imported into a copy of its notes doubled every card's reps).
   */
  startsNew?: boolean;
  /** An imported rating: the card's state before it as the file said (revlog review_state), kept in its line. */
  state?: 0 | 1 | 2 | 3;
}

/**
 * This device's first event (its `n`) not yet appended to its file because a git operation was
 * under way: it and every later one of this device wait in the database (see append()).
 */
const HELD_KEY = 'review_log_held_from';

export class DeviceLog {
  readonly folder: string;
  readonly device: string;
  private readonly db: KbDatabase;
  private readonly dayStartsAt: string;
  private readonly events: ReviewEventQueries;
  private readonly writes: ReturnType<typeof deviceEventWrites>;
  /** This device's file's size before each append of the running transaction (null: no file yet); null when none notes them. */
  private appendedFrom: Array<number | null> | null = null;

  constructor(db: KbDatabase, folder: string, dayStartsAt: string) {
    this.db = db;
    this.folder = folder;
    this.dayStartsAt = dayStartsAt;
    this.device = deviceId(db);
    this.events = reviewEventQueries(db);
    this.writes = deviceEventWrites(db);
  }

  get path(): string {
    return deviceLogPath(this.folder, this.device);
  }

  get fileName(): string {
    return basename(this.path);
  }

  /** The log line of this device's `n`-th event; `seed`, the card's state, when it has no event before it. */
  lineOf(event: NewEvent, n: number, seed: SeedRow | undefined): ReviewEvent {
    return {
      id: event.id,
      device: this.device,
      n,
      card: event.card,
      at: event.at,
      kind: event.kind,
      day: reviewDayLabel(event.at, this.dayStartsAt),
      ...(event.rating !== undefined ? { rating: event.rating } : {}),
      ...(event.duration !== undefined ? { duration: event.duration } : {}),
      ...(event.target !== undefined ? { target: event.target } : {}),
      ...(event.reset ? { reset: true } : {}),
      ...(event.state !== undefined ? { state: event.state } : {}),
      ...(seed ? { from: seed } : {}),
    };
  }

  /**
   * Logs an event of this device: stored in the database and appended (fsynced) to this
   * device's file. Call it inside a transaction that notes the appends (noteAppends), after the
   * log was caught up (ReviewLog.catchUp)
   * and after the change: if the append fails the transaction rolls back; if kb dies after the
   * append, the line is read and applied at the next start. `before` is the card's row before
   * the event: it seeds the replay when the card has no event yet.
   *
   * `replay`: the card must be replayed (ReviewLog.replay) in this transaction. An event timed
   * before one already merged from another device (clocks disagree) does not replay last, and
   * an undo may take back a rating that another device's action followed: then the card's row
   * becomes what the replay gives, as on every other device.
   */
  record(event: NewEvent, before: FsrsColumns): { replay: boolean } {
    const last = this.events.lastOf(event.card);
    const line = this.lineOf(event, this.events.nextN(this.device), last !== null ? undefined : seedOf(before));
    this.writes.insert(eventRow(line));
    this.append([line]);
    const outOfOrder = last !== null && compareEventKeys(last, { at: line.at, device: line.device, n: line.n, id: line.id }) > 0;
    return { replay: outOfOrder || event.kind === 'undo' };
  }

  /**
   * Notes this device's appends from now on, for the transaction about to run (the use case's,
   * in app/): `takeBack()` when it fails (a throw after the append, SQLITE_FULL at the commit)
   * cuts the lines it appended off again, so the next start does not apply events the database
   * rolled back; `end()` when it is over. Null while a transaction already notes them: its
   * outer one takes the lines back.
   */
  noteAppends(): { takeBack(): void; end(): void } | null {
    if (this.appendedFrom !== null) return null;
    const appendedFrom: Array<number | null> = [];
    this.appendedFrom = appendedFrom;
    return {
      takeBack: () => {
        if (appendedFrom.length > 0) truncateLog(this.path, this.folder, appendedFrom[0]);
      },
      end: () => {
        this.appendedFrom = null;
      },
    };
  }

  /**
   * Appends lines, already stored in the database, to this device's file (fsynced), and records
   * the file as read to its new end. While git merges, rebases, cherry-picks or reverts the
   * knowledge base, the file is git's: a line appended then was found by `git rebase --continue`
   * as an untracked file in the way, or a change conflicting with the commit being replayed, and
   * landed in a file git was about to replace. So the lines wait in the database (applied to the
   * schedule as usual), and lines logged while others wait join them: the first kb after git's
   * operation ends appends them all, in their order (ReviewLog.catchUp, which every transaction
   * that logs runs first, and every open), having read what the file as git left it holds.
   */
  append(lines: readonly ReviewEvent[]): void {
    if (lines.length === 0) return;
    const held = this.heldFrom();
    if (held !== null || this.gitBusy()) {
      if (held === null) this.events.setMeta(HELD_KEY, String(lines[0].n));
      return;
    }
    this.writes.writtenTo(this.fileName, this.write(lines));
  }

  /**
   * Once git's operation has ended, appends this device's events that waited for it from its
   * `from`-th on, in their order; the caller has read the file as git left it first. Inside the
   * caller's transaction. Each event is appended once even if kb was killed after an earlier
   * append and before its commit: the file's last event of this device says where the append stopped.
   */
  appendHeld(from: number): void {
    const last = lastEventOf(this.path, this.device);
    const waiting = this.events.deviceEventsFrom(this.device, last === null ? from : Math.max(from, last.n + 1));
    if (waiting.length > 0) this.writes.writtenTo(this.fileName, this.write(waiting.map(eventLine)));
    this.events.deleteMeta(HELD_KEY);
  }

  /** A git operation is under way in the repository holding the log folder. */
  gitBusy(): boolean {
    return gitOperationInProgress(this.folder) !== null;
  }

  /** This device's first event waiting for a git operation to end (see append()), or null. */
  heldFrom(): number | null {
    const stored = this.events.meta(HELD_KEY);
    return stored === null ? null : Number(stored);
  }

  /** Writes lines at the end of this device's file (fsynced), noting its size before for noteAppends(); its size after. */
  private write(lines: readonly ReviewEvent[]): number {
    if (this.appendedFrom !== null) {
      let size: number | null;
      try {
        size = statSync(this.path).size;
      } catch {
        size = null;
      }
      this.appendedFrom.push(size);
    }
    return appendEvents(this.path, this.folder, lines);
  }
}

/** Appends events and fsyncs the file (and the folder when the file is new). Returns the file's size after. */
export function appendEvents(path: string, folder: string, events: readonly ReviewEvent[]): number {
  mkdirSync(folder, { recursive: true });
  const fd = openSync(path, 'a+');
  try {
    const size = fstatSync(fd).size;
    const created = size === 0;
    // A file that does not end in a newline (cut short by a copy or a sync tool, a half line
    // from elsewhere): this append starts a line of its own, or it was glued onto that last
    // line and both were lost to every replay (found by a fault probe).
    const text = (created || lastByte(fd, size) === 0x0a ? '' : '\n') + events.map(formatEvent).join('');
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
    if (created) syncFolder(folder);
    return fstatSync(fd).size;
  } catch (error) {
    // A write or fsync by descriptor names no file: the line kb prints (a full disk) then does.
    if (isFsFault(error)) error.path ??= path;
    throw error;
  } finally {
    closeSync(fd);
  }
}

function lastByte(fd: number, size: number): number {
  const byte = Buffer.alloc(1);
  readSync(fd, byte, 0, 1, size - 1);
  return byte[0];
}

/**
 * Takes back an append whose database transaction failed: the file cut back to `size` (fsynced),
 * or removed when the append created it, so the next start does not apply a rolled-back event.
 */
export function truncateLog(path: string, folder: string, size: number | null): void {
  if (size === null) {
    rmSync(path, { force: true });
    syncFolder(folder);
    return;
  }
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, size);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
