// What kb scan works on and what it reports: shared by the scan and its database half.
import type { KbDatabase } from '../../store/db.ts';
import type { KbConfig } from '../../kb/config.ts';
import type { ScanFileOutcome } from '../../kb/scan-file.ts';
import type { Diagnostic, KbPath } from '../../model/knowledge-base.ts';

export interface ScanTarget {
  root: string;
  db: KbDatabase;
  /** Whether ids may be written into the files (false for the bundled knowledge base). */
  writable: boolean;
  config: KbConfig;
}

export interface ScanCounts {
  /** Cards new to the database. */
  added: number;
  /** Cards whose content (front, back, body, tags, lab, calc) changed, or whose deck changed in place (notesFolders). */
  changed: number;
  /** Cards found in another file than before, content unchanged (their deck may have changed with the folder). */
  moved: number;
  /** Of the moved cards, those whose deck changed with their folder. */
  movedToAnotherDeck: number;
  /** Orphans whose source came back. */
  restored: number;
  /** Cards that became orphans in this scan (their source disappeared). */
  removed: number;
  unchanged: number;
  /** Cards in the database with a live source, after the scan. */
  total: number;
  orphans: number;
}

export interface ScanReport {
  root: string;
  files: { total: number; read: number; parsed: number; skipped: number };
  cards: ScanCounts;
  /** Files into which ids were written. */
  idsWritten: { file: KbPath; count: number }[];
  /** The folders searched for notes and cards, as a message names them (`notes/, cards/`). */
  lookedIn: string;
  /** Why every file was read again though unchanged (kb.json's idKey or notesFolders changed), or null. */
  readAgain: string | null;
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

export type ParsedOutcome = Extract<ScanFileOutcome, { kind: 'parsed' }>;
