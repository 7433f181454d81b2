// What every command that opens a knowledge base does with the review logs first: the
// one-time export of a database's older history, then reading what other devices (or a
// killed kb) appended, replayed into the database before anything reads the schedule.
import type { KbDatabase } from '../../store/db.ts';
import { ReviewLog, reviewLogFolder, type IngestReport, type Replaying } from './review-log.ts';
import { FsrsScheduler } from '../../srs/fsrs.ts';
import type { ReviewSettings } from '../../srs/review-settings.ts';

export interface LoggedKnowledgeBase {
  root: string;
  writable: boolean;
  db: KbDatabase;
  /** With kb.json's idKey, where a note's id is (default id). */
  config: ReviewSettings & { idKey?: string };
}

export function openReviewLog(kb: LoggedKnowledgeBase): ReviewLog | null {
  const folder = reviewLogFolder(kb);
  return folder === null ? null : new ReviewLog(kb.db, folder, new FsrsScheduler(kb.config), kb.config.idKey);
}

/** Exports legacy history (once) and ingests the logs; null when the knowledge base keeps no log. */
export function syncReviewLogs(kb: LoggedKnowledgeBase, onReplay?: (replay: Replaying) => void): IngestReport | null {
  const log = openReviewLog(kb);
  if (log === null) return null;
  log.exportLegacy();
  return log.ingest({ root: kb.root, writable: kb.writable, onReplay });
}

/** After a scan added cards: replays those that had events waiting, and rewrites their fields. */
export function replayScannedCards(kb: LoggedKnowledgeBase): IngestReport | null {
  const log = openReviewLog(kb);
  return log === null ? null : log.ingest({ root: kb.root, writable: kb.writable });
}

/** One line on the log lines that were skipped, or null. */
export function logProblems(report: IngestReport | null): string | null {
  if (report === null || report.problems.length === 0) return null;
  const more = report.problems.length > 1 ? ` (and ${report.problems.length - 1} more)` : '';
  return `review log: ${report.problems[0]}${more}`;
}
