// kb scan: bring the database up to date with the knowledge base's files.
//
// Incremental: a file whose size and mtime match its `files` row is not read; one whose
// content hash matches is not parsed. Changed files are parsed, missing ids are written
// into them (personal knowledge bases), and the cards are upserted in one transaction.
// A card whose source is gone becomes an orphan, keeping its schedule and history.
// A scan that finds nothing changed writes nothing: no file, no row.
import { realpathSync } from 'node:fs';
import { cardQueries } from '../../store/card-rows.ts';
import { fileQueries, type FileRow } from '../../store/file-stamps.ts';
import { cardLabLinks, knownLabs, unknownLabWarnings } from '../../kb/lab-links.ts';
import { describeFolders, sourceKind } from '../../kb/note-folders.ts';
import { applyChanges } from './scan-apply.ts';
import { settingsSinceLastScan } from './scan-settings.ts';
import type { ParsedOutcome, ScanReport, ScanTarget } from './scan-report.ts';
import type { ScanFileOutcome } from '../../kb/scan-file.ts';
import type { Diagnostic, KbPath } from '../../model/knowledge-base.ts';
import { walkKnowledgeBase } from '../../kb/walk.ts';

export interface ScanOptions {
  /** Read and parse every file, ignoring what the last scan recorded. */
  full?: boolean;
  /** Write missing ids into the files even where the knowledge base is read-only (maintainers, on the bundled one). */
  writeIds?: boolean;
  now?: number;
  /** Called after each changed file is read and parsed. */
  onProgress?: (done: number, total: number) => void;
  /** Parse on worker threads from this many changed files on (tests lower it). */
  workersFrom?: number;
  /** Parse on worker threads only, not on the main thread too (tests use it). */
  workersOnly?: boolean;
}

function isCardSource(path: KbPath, notesFolders: readonly string[]): boolean {
  const kind = sourceKind(path, notesFolders);
  return kind === 'note' || kind === 'cards';
}

/** lab/<name>.md -> name, for files directly in lab/. */
function labName(path: KbPath): string | null {
  const match = /^lab\/([^/]+)\.md$/.exec(path);
  return match ? match[1] : null;
}

/** Thrown to roll back a transaction applied with id writes that then failed. */
const REDO = Symbol('redo with the failed id writes');

/** What the files' outcomes say, sorted for the transaction; the report counts them. */
function digest(outcomes: ScanFileOutcome[], report: ScanReport, note: (diagnostic: Diagnostic) => void, now: number) {
  const touched: FileRow[] = [];
  const parsedSources: ParsedOutcome[] = [];
  /** Files that could not be read or parsed cleanly: their cards in the database stay as they are. */
  const heldPaths = new Set<string>();
  for (const outcome of outcomes) {
    if (outcome.kind === 'unreadable') {
      note(outcome.diagnostic);
      report.files.skipped++;
      heldPaths.add(outcome.path);
      continue;
    }
    report.files.read++;
    if (outcome.kind === 'same') {
      touched.push({ path: outcome.path, size: outcome.size, mtimeMs: outcome.mtimeMs, sha256: outcome.sha, scannedAt: now });
      continue;
    }
    report.files.parsed++;
    outcome.diagnostics.forEach(note);
    if (outcome.idsWritten > 0) report.idsWritten.push({ file: outcome.path, count: outcome.idsWritten });
    if (outcome.held || outcome.skipped || outcome.diagnostics.some((d) => d.severity === 'error')) heldPaths.add(outcome.path);
    parsedSources.push(outcome);
  }
  return { touched, parsedSources, heldPaths };
}

/**
 * The lab links to check: the database's, but a file parsed now with an error (skipped, its
 * cards kept as they were) by its links as read now, so its missing labs are warned of beside
 * the error rather than once it is fixed, and a stale link of its stored cards is not.
 */
function labLinks(stored: { path: string; line: number; lab: string }[], outcomes: ScanFileOutcome[]) {
  const erred = outcomes.filter((o): o is ParsedOutcome => o.kind === 'parsed' && !o.held && (o.skipped || o.diagnostics.some((d) => d.severity === 'error')));
  if (erred.length === 0) return stored;
  const paths = new Set<string>(erred.map((o) => o.path));
  const read = erred.flatMap((o) => cardLabLinks(o.path, o.skipped ? (o.cardsAsRead ?? []) : o.cards));
  return [...stored.filter((link) => !paths.has(link.path)), ...read].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
}

export async function scanKnowledgeBase(target: ScanTarget, options: ScanOptions = {}): Promise<ScanReport> {
  const now = options.now ?? Date.now();
  const { db } = target;
  const files = fileQueries(db);
  const cards = cardQueries(db);
  const report: ScanReport = {
    root: target.root,
    files: { total: 0, read: 0, parsed: 0, skipped: 0 },
    cards: { added: 0, changed: 0, moved: 0, movedToAnotherDeck: 0, restored: 0, removed: 0, unchanged: 0, total: 0, orphans: 0 },
    idsWritten: [],
    lookedIn: describeFolders(target.config.notesFolders),
    readAgain: null,
    errors: [],
    warnings: [],
  };
  const note = (diagnostic: Diagnostic) => (diagnostic.severity === 'error' ? report.errors : report.warnings).push(diagnostic);

  const { notesFolders } = target.config;
  const walk = walkKnowledgeBase(target.root, notesFolders);
  walk.diagnostics.forEach(note);
  const sources = walk.files.filter((file) => isCardSource(file.path, notesFolders));
  const labs = knownLabs(target.root, walk.files.map((file) => labName(file.path)).filter((name): name is string => name !== null));
  report.files.total = sources.length;

  // Stat-only pass: the common warm scan ends here, having read nothing but the directory tree.
  const known = files.all();
  const onDisk = new Set(sources.map((file) => file.path));
  // --write-ids also revisits unchanged files whose cards have only derived ids.
  const idless = options.writeIds && !target.writable ? new Set(cards.derivedIds().map((card) => card.path)) : new Set<string>();
  const { idKey } = target.config;
  const settings = settingsSinceLastScan(files, idKey, notesFolders);
  const { readWith, keyChanged } = settings;
  const full = options.full === true || settings.changed !== null;
  report.readAgain = settings.changed;
  const candidates = sources.filter((file) => {
    const row = known.get(file.path);
    return full || idless.has(file.path) || !row || row.size !== file.size || row.mtimeMs !== Math.trunc(file.mtimeMs);
  });
  /** The outcomes the transaction applied (after any id write corrected). */
  let applied: ScanFileOutcome[] = [];
  const removedPaths = new Set<string>();
  for (const path of known.keys()) if (!onDisk.has(path)) removedPaths.add(path);
  for (const path of cards.livePaths()) if (!onDisk.has(path)) removedPaths.add(path);

  // Read and parse what changed (on all cores when there is a lot of it). The parsers (markdown-it,
  // yaml) are loaded only when something changed: a warm scan never pays for it.
  const writeIds = target.writable || options.writeIds === true;
  const deriveWrittenIds = !target.writable;
  // A card that has only a derived id (kb could not write one into its file) keeps it when kb
  // writes one at last: a new id would leave its ratings on a card no file holds.
  const firstScan = cards.isEmpty();
  const keepIds = (path: KbPath) => {
    if (keyChanged && writeIds && !deriveWrittenIds) return { carryIds: cards.liveIdsIn(path) };
    if (!writeIds || deriveWrittenIds || firstScan) return {};
    const ids = cards.derivedIdsIn(path);
    return ids.length === 0 ? {} : { keepIds: ids };
  };
  const scanned = candidates.length === 0 ? null : await (await import('../../kb/scan-pool.ts')).scanFiles(
    candidates.map((file) => ({ ...file, knownSha: idless.has(file.path) ? null : (known.get(file.path)?.sha256 ?? null), ...keepIds(file.path) })),
    { root: target.root, rootReal: realpathSync.native(target.root), writeIds, deriveWrittenIds, full, notesFolders, idKey, ...(keyChanged ? { carryIdKey: readWith } : {}) },
    options.onProgress,
    { workersFrom: options.workersFrom, workersOnly: options.workersOnly },
  );
  try {
    await scanned?.idWrites.prepare();
    if (candidates.length > 0 || removedPaths.size > 0 || settings.record) {
      // The ids are counted as written while the transaction runs and helper threads swap them
      // in (kb/id-writes.ts); a note whose write failed has the transaction redone with its
      // true outcome. IMMEDIATE: decide and write under one lock, so two scans at once cannot
      // both insert a card.
      const before = structuredClone(report);
      const apply = (outcomes: ScanFileOutcome[]) => {
        applied = outcomes;
        const { parsedSources, touched, heldPaths } = digest(outcomes, report, note, now);
        applyChanges(target, known, parsedSources, touched, removedPaths, heldPaths, report, now);
        if (settings.record) {
          files.setReadWith('id_key', idKey);
          files.setReadWith('notes_folders', JSON.stringify(notesFolders));
        }
      };
      db.transaction(() => {
        const outcomes = scanned?.outcomes ?? [];
        let corrections = new Map<number, ScanFileOutcome>();
        try {
          db.transaction(() => {
            if (scanned) corrections = scanned.idWrites.swap(() => apply(outcomes));
            else apply(outcomes);
            if (corrections.size > 0) throw REDO;
          })();
        } catch (error) {
          if (error !== REDO) throw error;
          Object.assign(report, structuredClone(before));
          apply(outcomes.map((outcome, index) => corrections.get(index) ?? outcome));
        }
      }).immediate();
    }
  } finally {
    scanned?.idWrites.close();
  }

  // A file this scan did not parse (unchanged) keeps its warnings: said again until it is fixed.
  const parsedNow = new Set((scanned?.outcomes ?? []).filter((outcome) => outcome.kind !== 'same').map((outcome) => outcome.path));
  for (const file of sources) {
    const stored = parsedNow.has(file.path) ? null : known.get(file.path)?.warnings;
    if (stored) for (const diagnostic of JSON.parse(stored) as Diagnostic[]) note(diagnostic);
  }
  report.warnings.push(...unknownLabWarnings(labLinks(cards.labLinks(), applied), labs, target.root));
  report.cards.total = cards.liveCount();
  report.cards.orphans = cards.orphanCount();
  const { added, changed, moved, restored } = report.cards;
  report.cards.unchanged = report.cards.total - added - changed - moved - restored;
  return report;
}
