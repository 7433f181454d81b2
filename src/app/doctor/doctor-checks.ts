// kb doctor: checks that the database and the files agree, and that the database is sound.
//   - SQLite integrity (PRAGMA integrity_check, foreign_key_check)
//   - duplicate card ids across the files (an error; kb scan refuses both copies)
//   - cards without an id in their file (bundled: derived ids; personal: run kb scan)
//   - orphans: cards whose source is gone, kept with their history
//   - card links to labs that do not exist
//   - cards whose schedule does not replay from their log (store/log-replay.ts)
//   - notes whose review fields in the frontmatter disagree with the database
//     (only for cards reviewed in kb: before that the frontmatter seeds the database)
//   - kb's own temp files left by a killed process (--fix removes them)
// --fix rewrites the disagreeing frontmatter fields from the database (personal knowledge bases).
// A read-only note (no write bits) is left alone by --fix too, as write-back leaves it.
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { cardQueries } from '../../store/card-rows.ts';
import type { KbDatabase } from '../../store/db.ts';
import { fsrsQueries } from '../../store/review-writes.ts';
import { reviewFields, type ReviewField } from '../../srs/review-fields.ts';
import { fsrsParameters } from '../../srs/review-settings.ts';
import { cardsOffTheirLog } from '../../store/log-replay.ts';
import { replayProblemText } from './replay-words.ts';
import { writeFileAtomic } from '../../kb/atomic-write.ts';
import type { KbConfig } from '../../kb/config.ts';
import { updateFrontmatterFields } from '../../kb/frontmatter-edit.ts';
import { describeFsFault, isFsFault } from '../../kb/fs-fault.ts';
import { knownLabs, labKeyLine, unknownLabWarnings } from '../../kb/lab-links.ts';
import { readKnowledgeFile } from '../../kb/read-file.ts';
import { sha256 } from '../../kb/scan-file.ts';
import { scanFiles } from '../../kb/scan-pool.ts';
import { staleTempFiles, type StaleTempFile } from '../../kb/stale-temp-files.ts';
import { isWriteProtected, WRITE_PROTECTED } from '../../kb/writeback.ts';
import { parseFrontmatterDate, reviewDayLabel } from '../../srs/study-day.ts';
import type { Diagnostic, KbPath, NoteSeed } from '../../model/knowledge-base.ts';
import { sourceKind } from '../../kb/note-folders.ts';
import { walkKnowledgeBase } from '../../kb/walk.ts';

export interface DoctorTarget {
  root: string;
  db: KbDatabase;
  writable: boolean;
  bundled: boolean;
  config: KbConfig;
}

export interface DoctorOptions {
  fix?: boolean;
  onProgress?: (done: number, total: number) => void;
}

export interface FieldMismatch {
  field: ReviewField;
  file: string | number | null;
  database: string | number | null;
  /**
   * Why the file's value was not read, where it holds one kb left out (`2099-01-01 is after
   * today (…): no review happened then`, `expected a whole number >= 0, got "abc"`): the field
   * is then not null in the file, and "file null" misquoted it (found as a user).
   */
  notRead?: string;
}

export interface DoctorReport {
  root: string;
  integrity: { ok: boolean; messages: string[]; foreignKeyViolations: number };
  duplicates: { id: string; places: { file: KbPath; line: number }[] }[];
  /**
   * Cards whose file holds no id; `readOnly`: its file is write-protected, `linked`: it is reached
   * through a symbolic link (kb never writes through one): either way kb scan cannot write one (kb keeps a derived id).
   */
  missingIds: { file: KbPath; line: number; front: string; readOnly: boolean; linked: boolean }[];
  orphans: { id: string; path: string; line: number; front: string }[];
  unknownLabs: { id: string; path: string; line: number; lab: string }[];
  frontmatter: { id: string; file: KbPath; mismatches: FieldMismatch[]; fixed: boolean; fixError?: string }[];
  /** Cards whose schedule does not replay from their log of ratings and actions (errors). */
  replay: { id: string; problem: string }[];
  /** Files that could not be read or parsed cleanly (kb scan reports them in full). */
  unreadable: Diagnostic[];
  /** kb's own temp files left by a process that is gone (--fix removes them). */
  staleTempFiles: StaleTempFile[];
  errors: number;
  /** Warnings as kb doctor prints them: one a finding (a stale temp file, a note), and one for all cards without an id. */
  warnings: number;
}

function seedValue(seed: NoteSeed, field: ReviewField): string | number | null {
  switch (field) {
    case 'next_review':
      return seed.nextReview;
    case 'last_reviewed':
      return seed.lastReviewed;
    case 'review_count':
      return seed.reviewCount;
    case 'mastery_level':
      return seed.masteryLevel;
  }
}

/** The scan's warning that left a note's `field` out ("last_reviewed: …; ignored"), as its reason alone. */
function notReadReason(diagnostics: readonly Diagnostic[], field: ReviewField): string | undefined {
  const warning = diagnostics.find((d) => d.severity === 'warning' && d.message.startsWith(`${field}: `));
  return warning?.message.slice(field.length + 2).replace(/; ignored$/, '');
}

function agree(field: ReviewField, file: string | number | null, database: string | number | null, config: KbConfig): boolean {
  if (file === null || database === null) return file === database;
  if (field === 'next_review' || field === 'last_reviewed') {
    const day = (value: string | number) => {
      const ms = typeof value === 'number' ? value : parseFrontmatterDate(value, config.dayStartsAt);
      return ms === null ? String(value) : reviewDayLabel(ms, config.dayStartsAt);
    };
    return day(file) === day(database);
  }
  if (field === 'mastery_level') return Math.abs(Number(file) - Number(database)) < 0.005;
  return Number(file) === Number(database);
}

export async function diagnoseKnowledgeBase(target: DoctorTarget, options: DoctorOptions = {}): Promise<DoctorReport> {
  const { db, config } = target;
  const weights = fsrsParameters(config).w;
  const cards = cardQueries(db);
  const fsrs = fsrsQueries(db);
  const integrityMessages = db.pragma('integrity_check', { simple: false }) as { integrity_check: string }[];
  const foreignKeyViolations = (db.pragma('foreign_key_check', { simple: false }) as unknown[]).length;
  const messages = integrityMessages.map((row) => row.integrity_check);
  const report: DoctorReport = {
    root: target.root,
    integrity: { ok: messages.length === 1 && messages[0] === 'ok' && foreignKeyViolations === 0, messages, foreignKeyViolations },
    duplicates: [],
    missingIds: [],
    orphans: cards.orphans().map((card) => ({ id: card.id, path: card.path, line: card.line, front: card.front })),
    unknownLabs: [],
    frontmatter: [],
    replay: cardsOffTheirLog(db).map((problem) => ({ id: problem.id, problem: replayProblemText(problem) })),
    unreadable: [],
    staleTempFiles: staleTempFiles(target.root, options.fix === true && target.writable),
    errors: 0,
    warnings: 0,
  };

  const walk = walkKnowledgeBase(target.root, config.notesFolders);
  const rootReal = realRoot(target.root);
  const labs = knownLabs(target.root, walk.files.flatMap((entry) => /^lab\/([^/]+)\.md$/.exec(entry.path)?.[1] ?? []));
  const sources = walk.files.filter((entry) => ['note', 'cards'].includes(sourceKind(entry.path, config.notesFolders) ?? ''));
  const { outcomes } = await scanFiles(
    sources.map((entry) => ({ ...entry, knownSha: null })),
    { root: target.root, writeIds: false, deriveWrittenIds: false, full: true, notesFolders: config.notesFolders, idKey: config.idKey },
    options.onProgress,
  );

  const places = new Map<string, { file: KbPath; line: number }[]>();
  // Files whose review fields differ from the database, compared (and fixed) once every file's ids are known.
  const pending: { index: number; path: KbPath; sha: string; found: DoctorReport['frontmatter']; fixes: Partial<Record<ReviewField, string | number | null>> }[] = [];
  outcomes.forEach((outcome, index) => {
    if (outcome.kind === 'unreadable') return void report.unreadable.push(outcome.diagnostic);
    if (outcome.kind !== 'parsed') return;
    report.unreadable.push(...outcome.diagnostics.filter((d) => d.severity === 'error'));
    const fixes: Partial<Record<ReviewField, string | number | null>> = {};
    const found: DoctorReport['frontmatter'] = [];
    let readOnly: boolean | null = null;
    let linked: boolean | null = null;
    for (const card of outcome.cards) {
      if (!card.idInFile) {
        readOnly ??= writeProtected(sources[index].abs);
        linked ??= reachedThroughLink(rootReal, sources[index].abs);
        report.missingIds.push({ file: outcome.path, line: card.line, front: card.front, readOnly, linked });
        continue;
      }
      const list = places.get(card.id) ?? [];
      list.push({ file: outcome.path, line: card.line });
      places.set(card.id, list);
      if (card.kind !== 'note' || card.seed === null || !fsrs.hasReviews(card.id)) continue;
      const state = fsrs.get(card.id);
      if (!state) continue;
      const mismatches: FieldMismatch[] = [];
      for (const [field, database] of Object.entries(reviewFields(state, weights, config.dayStartsAt)) as [ReviewField, string | number | null][]) {
        const file = seedValue(card.seed, field);
        if (!agree(field, file, database, config)) {
          const notRead = file === null ? notReadReason(outcome.diagnostics, field) : undefined;
          mismatches.push(notRead === undefined ? { field, file, database } : { field, file, database, notRead });
          fixes[field] = database;
        }
      }
      if (mismatches.length > 0) found.push({ id: card.id, file: outcome.path, mismatches, fixed: false });
    }
    if (found.length > 0) pending.push({ index, path: outcome.path, sha: outcome.sha, found, fixes });
  });
  for (const [id, list] of places) if (list.length > 1) report.duplicates.push({ id, places: list });
  // A note whose id another file carries too (a copy) is compared with nothing: the database's
  // row is one card's, and which file is that card is the user's call (the duplicate is an
  // error saying so). Taken as this note's, --fix wrote another card's review fields into the
  // copy (found as a user: review_count 1 became 15).
  const duplicated = new Set(report.duplicates.map((duplicate) => duplicate.id));
  for (const file of pending) {
    if (file.found.some((entry) => duplicated.has(entry.id))) continue;
    if (options.fix && target.writable) {
      const error = rewriteFields(target.root, sources[file.index].abs, file.path, file.sha, file.fixes);
      for (const entry of file.found) {
        entry.fixed = error === null;
        if (error !== null) entry.fixError = error;
      }
    }
    report.frontmatter.push(...file.found);
  }
  // At the line that names the lab (a note's frontmatter key), not the card's first line.
  for (const link of cards.labLinks()) if (!labs.has(link.lab)) report.unknownLabs.push({ ...link, line: labKeyLine(target.root, link) });

  // A file kb scan skips for an error (its cards are not reviewed) is an error here too, as scan counts it.
  const unreadableErrors = report.unreadable.filter((diagnostic) => diagnostic.severity === 'error').length;
  report.errors = (report.integrity.ok ? 0 : 1) + report.duplicates.length + report.replay.length + unreadableErrors;
  // Each finding kb doctor prints a warning line for counts once. Cards without an id are one
  // finding, one line ("6000 cards in 6000 files have no id yet; run kb scan"): counted per
  // card, that line made "0 errors, 6076 warnings" of 77 warnings.
  report.warnings =
    new Set(report.missingIds.map(missingIdGroup)).size +
    unknownLabWarnings(report.unknownLabs, new Set()).length +
    report.frontmatter.filter((entry) => !entry.fixed).length +
    report.unreadable.length - unreadableErrors +
    report.staleTempFiles.filter((file) => !file.removed).length;
  return report;
}

/** Which of kb doctor's lines on cards without an id names this one (as cli/doctor.ts groups them): kb scan writes it, or cannot (read-only, a link). */
function missingIdGroup(entry: { readOnly: boolean; linked: boolean }): 'scan' | 'read-only' | 'linked' {
  return entry.linked ? 'linked' : entry.readOnly ? 'read-only' : 'scan';
}

function realRoot(root: string): string {
  try {
    return realpathSync.native(root);
  } catch {
    return root;
  }
}

/**
 * A file kb scan never writes an id into, as the scan's writes refuse it: a symbolic link, or a
 * file whose real path is outside the knowledge base (a linked folder). Doctor told the user to
 * run kb scan for it, which left it as it was, every time.
 */
function reachedThroughLink(rootReal: string, abs: string): boolean {
  try {
    if (lstatSync(abs).isSymbolicLink()) return true;
    const fromRoot = relative(rootReal, realpathSync.native(abs));
    return fromRoot === '..' || fromRoot.startsWith(`..${sep}`) || isAbsolute(fromRoot);
  } catch {
    return false;
  }
}

function writeProtected(abs: string): boolean {
  try {
    return isWriteProtected(statSync(abs));
  } catch {
    return false;
  }
}

/** Rewrites a note's review fields, only if it is still the file that was checked. Returns why not, or null. */
function rewriteFields(root: string, abs: string, path: KbPath, checkedSha: string, fields: Partial<Record<ReviewField, string | number | null>>): string | null {
  try {
    if (isWriteProtected(statSync(abs))) return WRITE_PROTECTED;
  } catch (error) {
    return `cannot read it (${(error as NodeJS.ErrnoException).code ?? error})`;
  }
  const read = readKnowledgeFile(abs, path);
  if ('diagnostic' in read) return read.diagnostic.message;
  if (sha256(read.bytes) !== checkedSha) return 'the file changed while kb doctor ran; run it again';
  try {
    writeFileAtomic(root, abs, updateFrontmatterFields(read.raw, fields), read.bytes);
    return null;
  } catch (error) {
    return isFsFault(error) ? describeFsFault({ code: error.code, syscall: error.syscall }) : (error as Error).message;
  }
}
