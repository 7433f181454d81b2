// The knowledge base a command works on, opened once: its folder, settings and database.
// Every command that touches a knowledge base starts with openKnowledgeBase.
import { counted } from './plural.ts';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, loadConfig, type KbConfig } from '../kb/config.ts';
import { LocationError, locateKnowledgeBase, stateFolderName, type KbSource } from '../kb/location.ts';
import { unadoptedFolderHint } from '../kb/adopt.ts';
import { ForeignDatabaseError, NewerDatabaseError, ReadOnlyDatabaseError, hasSqliteHeader, cannotWrite, openDatabase, type KbDatabase } from '../store/db.ts';
import { logProblems, replayScannedCards, syncReviewLogs } from '../app/review-log/open-review-log.ts';
import type { Replaying } from '../app/review-log/review-log.ts';
import { UserError } from './errors.ts';
import { noteDatabasePath } from './fault.ts';

export interface KnowledgeBase {
  /** Absolute path of the knowledge-base folder. */
  root: string;
  /** The knowledge base shipped with kb (its state lives in the user's data folder). */
  bundled: boolean;
  /** Whether kb may write into its files (ids, frontmatter write-back): false for the bundled one. */
  writable: boolean;
  dbPath: string;
  db: KbDatabase;
  config: KbConfig;
  configPath: string;
  source: KbSource;
  /** The bundled knowledge base was taken although the working folder holds notes of its own (unadoptedFolderHint). */
  unadoptedFolder: boolean;
}

export interface OpenOptions {
  /** The --kb flag, if given. */
  kb?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * The command only reads (kb due, cards, stats, doctor without --fix, export): it runs on a
   * database that cannot be written (a read-only file system) as kb last stored it. Any other
   * command is refused there before it starts, in one line (rather than failing at its first
   * write, after the user typed an answer into an editor, say).
   */
  readOnly?: boolean;
}

/** The short form of the unadopted-folder hint (kb/adopt.ts) that kb review and kb quiz show: one line at 80 columns. */
export const UNADOPTED_NOTICE = "kb's bundled cards, not this folder's notes: kb init . makes them yours";

/**
 * What a full screen says on its status line when it opens: the unadopted-folder hint, which
 * also went to stderr, where the screen hides it until it closes.
 */
export function screenNotice(kb: KnowledgeBase): string | undefined {
  return kb.unadoptedFolder ? UNADOPTED_NOTICE : undefined;
}

/** Finds, configures and opens the knowledge base; user mistakes become a one-line UserError. */
export function openKnowledgeBase(options: OpenOptions = {}): KnowledgeBase {
  try {
    const location = locateKnowledgeBase(options);
    const hint = unadoptedFolderHint(location, options.cwd ?? process.cwd());
    if (hint) process.stderr.write(hint.split('\n').map((line) => `kb: ${line}\n`).join(''));
    const config = loadConfig(location.configPath);
    noteDatabasePath(location.dbPath);
    ignoreStateFolder(location.root, location.dbPath);
    const db = openDatabase(location.dbPath);
    const kb = { ...location, writable: !location.bundled, db, config, unadoptedFolder: hint !== null };
    if (db.readonly) {
      if (!options.readOnly) {
        db.close();
        throw new ReadOnlyDatabaseError(`${location.dbPath}: cannot be written (${cannotWrite(location.dbPath) ?? 'read-only'})`);
      }
      // The review logs and notes are not read into it (that writes): say the view may be behind them.
      process.stderr.write(`kb: ${readOnlyNotice(location.dbPath)}\n`);
    } else {
      readReviewLogs(kb);
    }
    return kb;
  } catch (error) {
    if (error instanceof LocationError || error instanceof ConfigError || error instanceof NewerDatabaseError || error instanceof ForeignDatabaseError) {
      throw new UserError(error.message);
    }
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      // Every command failed on it, kb doctor too, with no word on what to do (found by a fault probe).
      const path = databasePath(options);
      // KB_DB naming a file that is no database at all (a note, a typo): "move it aside and kb
      // rebuilds it" would have had the user rename their note. Only kb's own database (or a
      // SQLite file, damaged) is a cache to move aside.
      if ((options.env ?? process.env).KB_DB && !hasSqliteHeader(path)) {
        throw new UserError(`database ${path}: not a SQLite database, so not kb's (KB_DB names another file?); kb changed nothing in it: set KB_DB to a database file's path, or unset it`);
      }
      throw new UserError(
        `database ${path}: ${(error as Error).message}; it is a cache of the notes and review logs: move it aside (mv ${path} ${path}.broken) and the next kb command rebuilds it (lab runs and quiz answers lived only in it)`,
        undefined,
        { cause: error }, // a fault of the machine: KB_DEBUG=1 prints its trace
      );
    }
    // A database that cannot be opened or written is a fault of the machine (cli/fault.ts says
    // which and what to do, and KB_DEBUG=1 adds the trace), not the user's mistake.
    throw error;
  }
}

/** What a command that only reads says on a database it cannot write. */
export function readOnlyNotice(dbPath: string): string {
  const why = cannotWrite(dbPath) === 'EROFS' ? 'is on a read-only file system' : 'cannot be written';
  return `warning: database ${dbPath} ${why}: shown as kb last stored it (notes and review logs changed since are not read in)`;
}

/** The database caches the review logs: what was appended since the last run is replayed first. */
function readReviewLogs(kb: KnowledgeBase): void {
  let noticeShown = false;
  try {
    const problems = logProblems(
      syncReviewLogs(kb, (replay) => {
        // A replay of seconds would otherwise look like a hang before the first screen (found
        // after kb optimize: the next kb review sat blank for 5 s on 100,000 events). On a
        // terminal only, and taken away once done: what follows starts on a clean line.
        if (!process.stderr.isTTY || replay.events < LONG_REPLAY_EVENTS) return;
        process.stderr.write(fitLine(replayNotice(replay), process.stderr.columns));
        noticeShown = true;
      }),
    );
    if (noticeShown) process.stderr.write('\r\x1b[K');
    if (problems) process.stderr.write(`kb: ${problems}\n`);
  } catch (error) {
    if (noticeShown) process.stderr.write('\n');
    kb.db.close();
    throw error;
  }
}

/** From this many events a replay takes about a second or more (100,000: 2-5 s on 2 cores). */
const LONG_REPLAY_EVENTS = 20_000;

/** What kb is doing while it replays a long history. */
function replayNotice(replay: Replaying): string {
  const why = replay.cause === 'settings' ? "kb.json's FSRS settings changed" : 'new to this database';
  return `kb: replaying ${replay.events.toLocaleString('en-US')} review events (${why})…`;
}

/** One line that does not wrap, so that \r and erasing the line take all of it away. */
function fitLine(text: string, columns: number | undefined): string {
  // A terminal whose size is not set (a pty nobody sized) says 0 columns.
  const width = (columns || 80) - 1;
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

function databasePath(options: OpenOptions): string {
  try {
    return locateKnowledgeBase(options).dbPath;
  } catch {
    return '(unknown)';
  }
}

/** A database kept in <kb>/.kb/ gets a .gitignore there, so a knowledge base under git stays clean. */
function ignoreStateFolder(root: string, dbPath: string): void {
  const stateDir = join(root, stateFolderName);
  if (dirname(dbPath) !== stateDir) return;
  const ignore = join(stateDir, '.gitignore');
  if (existsSync(ignore)) return;
  mkdirSync(stateDir, { recursive: true });
  try {
    writeFileSync(ignore, '# kb state (database): not part of the knowledge base\n*\n');
  } catch (error) {
    // A folder that cannot be written holds a database kb can only read (or none, said when it is opened).
    if (!['EROFS', 'EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
}

/**
 * openKnowledgeBase, then an incremental scan (only files whose size or mtime changed are
 * read), so a session never starts from a stale queue: a note added or edited since the last
 * run is there, and a fresh install reviews the bundled cards without a separate `kb scan`.
 * Problems are summarised on stderr; `kb scan` lists them in full.
 */
export async function openScannedKnowledgeBase(options: OpenOptions = {}): Promise<KnowledgeBase> {
  const kb = openKnowledgeBase(options);
  // A scan writes the database: one that cannot be written is shown as it is (openKnowledgeBase warned).
  if (kb.db.readonly) return kb;
  await scanOpened(kb);
  return kb;
}

/** The scan of openScannedKnowledgeBase on a knowledge base already open; closes it if the scan fails. */
export async function scanOpened(kb: KnowledgeBase): Promise<void> {
  try {
    const { scanKnowledgeBase } = await import('../app/scan/scan-kb.ts');
    const report = await scanKnowledgeBase(kb);
    // Cards the scan just added may have events from another device waiting for them.
    if (scanChangedCards(report)) replayScannedCards(kb);
    const problems = scanProblems(report);
    if (problems) process.stderr.write(`kb: ${problems}\n`);
    if (report.files.total === 0) process.stderr.write(`kb: ${(await import('../kb/note-folders.ts')).noSourcesMessage(report.lookedIn)}\n`);
  } catch (error) {
    kb.db.close();
    throw error;
  }
}

/**
 * Commands that take card ids (kb rate, kb suspend, ...) and kb undo open without a scan (a
 * rating should not wait for one). They scan first, as other commands do, when one is needed:
 * an id the database lacks may be in a note it has not read yet (a fresh clone, a pull that
 * brought notes), so kb scans before anyone says there is no such card; and after kb.json's
 * idKey or notesFolders changed, the note's write-back looks for its id under the new key,
 * which only a scan writes (kb rate right after a changed idKey had its write-back refused:
 * "the file no longer holds card ...").
 */
export async function scanBeforeCardCommand(kb: KnowledgeBase, ids: readonly string[], known: (id: string) => boolean): Promise<void> {
  if (ids.every(known)) {
    // A database that cannot be written is not scanned (openScannedKnowledgeBase), nor rated.
    if (kb.db.readonly) return;
    const { settingsChangedSinceLastScan } = await import('../app/scan/scan-settings.ts');
    if (settingsChangedSinceLastScan(kb.db, kb.config) === null) return;
  }
  await scanOpened(kb);
}

/** One line on the errors of a scan (`kb scan` lists them), or null when there were none. */
export function scanProblems(report: { errors: Array<{ file: string }> }): string | null {
  if (report.errors.length === 0) return null;
  const files = new Set(report.errors.map((error) => error.file)).size;
  return `${counted(report.errors.length, 'error')} in ${counted(files, 'file')}, which ${files === 1 ? 'was' : 'were'} skipped; run kb scan for details`;
}

/** Whether a scan changed any card (kb review rebuilds its queue after a late scan if so). */
export function scanChangedCards(report: { cards: { added: number; changed: number; moved: number; restored: number; removed: number } }): boolean {
  const { added, changed, moved, restored, removed } = report.cards;
  return added + changed + moved + restored + removed > 0;
}
