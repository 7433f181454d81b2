// Typed reading of the frontmatter fields kb understands. A wrong-typed field is a warning
// (with its line) and falls back to a default; it never stops the note from being read.
import type { Diagnostic, Difficulty, KbPath, NoteSeed } from '../model/knowledge-base.ts';
import { localMinuteLabel } from '../srs/study-day.ts';

export interface FieldReader {
  file: KbPath;
  data: Record<string, unknown>;
  keyLines: Map<string, number>;
  diagnostics: Diagnostic[];
}

function warn(reader: FieldReader, key: string, message: string): void {
  reader.diagnostics.push({ severity: 'warning', file: reader.file, line: reader.keyLines.get(key), message: `${key}: ${message}` });
}

function has(reader: FieldReader, key: string): boolean {
  return Object.hasOwn(reader.data, key) && reader.data[key] !== null && reader.data[key] !== undefined;
}

/** Dates kb accepts: 2025-10-19, or an ISO date-time such as 2025-10-19T08:30:00Z. */
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export function isValidDate(value: string): boolean {
  return DATE_PATTERN.test(value) && isCalendarDay(value.slice(0, 10)) && !Number.isNaN(Date.parse(value.includes(' ') ? value.replace(' ', 'T') : value));
}

/** 2026-11-31 and 2026-02-30 match the pattern, and Date.parse takes them (rolling over), but are no day: the history they date was dropped without a word (found as a user). */
function isCalendarDay(day: string): boolean {
  const [year, month, date] = day.split('-').map(Number);
  const at = new Date(Date.UTC(year, month - 1, date));
  return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === date;
}

export function readDate(reader: FieldReader, key: string): string | null {
  if (!has(reader, key)) return null;
  const value = reader.data[key];
  if (typeof value === 'string' && isValidDate(value.trim())) return value.trim();
  warn(reader, key, `expected a date like 2025-10-19, got ${JSON.stringify(value)}; ignored`);
  return null;
}

const DIFFICULTIES: readonly Difficulty[] = ['easy', 'medium', 'hard'];

export function readDifficulty(reader: FieldReader): Difficulty | null {
  if (!has(reader, 'difficulty')) return null;
  const value = reader.data.difficulty;
  const normalized = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if ((DIFFICULTIES as readonly string[]).includes(normalized)) return normalized as Difficulty;
  warn(reader, 'difficulty', `expected easy, medium or hard, got ${JSON.stringify(value)}; using the default`);
  return null;
}

export function readMastery(reader: FieldReader): number | null {
  if (!has(reader, 'mastery_level')) return null;
  const value = reader.data.mastery_level;
  if (typeof value === 'number' && value >= 0 && value <= 1) return value;
  warn(reader, 'mastery_level', `expected a number from 0 to 1, got ${JSON.stringify(value)}; ignored`);
  return null;
}

export function readReviewCount(reader: FieldReader): number | null {
  if (!has(reader, 'review_count')) return null;
  const value = reader.data.review_count;
  // A safe integer, not just a whole one: 1e308 (or 2^62, already rounded by the parse) is a
  // whole number too, and the card's INTEGER column refused it, failing the scan of every note.
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  warn(reader, 'review_count', `expected a whole number >= 0, got ${JSON.stringify(value)}; ignored`);
  return null;
}

/**
 * Whether a reviewed note's next_review falls on a day before its last_reviewed: no schedule
 * does that, so it is a hand edit (or a typo), and seeding leaves next_review out
 * (kb/seed-fsrs.ts) to schedule the card from its last review. Days are compared as written,
 * so two times of one day are not taken for it.
 */
export function nextReviewBeforeLastReviewed(seed: Pick<NoteSeed, 'lastReviewed' | 'nextReview'>): boolean {
  return seed.lastReviewed !== null && seed.nextReview !== null && seed.nextReview.slice(0, 10) < seed.lastReviewed.slice(0, 10);
}

/**
 * A last_reviewed on a day after today is a typo or a wrong clock: taken, it seeded the card as
 * reviewed then, and the review log showed a rating in 2099 (found by hand). Warned and left out,
 * so the card is seeded as without it. Today is the local calendar date: the study day is never
 * after it (a day starts at dayStartsAt, after midnight), so no date kb wrote on this device is
 * future here, nor is today's date before dayStartsAt; tomorrow's is. A timestamp counts by its
 * local date. `now` is the time the note is read.
 */
function pastReviewDate(reader: FieldReader, value: string | null, now: number): string | null {
  if (value === null) return null;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : localMinuteLabel(Date.parse(value.replace(' ', 'T')), true).slice(0, 10);
  const today = localMinuteLabel(now, true).slice(0, 10);
  if (day <= today) return value;
  warn(reader, 'last_reviewed', `${value} is after today (${today}): no review happened then; ignored`);
  return null;
}

export function readNoteSeed(reader: FieldReader, now = Date.now()): NoteSeed {
  const seed: NoteSeed = {
    created: readDate(reader, 'created'),
    lastReviewed: pastReviewDate(reader, readDate(reader, 'last_reviewed'), now),
    nextReview: readDate(reader, 'next_review'),
    reviewCount: readReviewCount(reader),
    difficulty: readDifficulty(reader),
    masteryLevel: readMastery(reader),
  };
  // Taken without a word, such a pair made a reviewed card due on a day before its last review.
  if (nextReviewBeforeLastReviewed(seed)) {
    const dates = `${seed.nextReview} is before last_reviewed ${seed.lastReviewed}`;
    // Without a review_count, last_reviewed never counts (the card starts new): next_review stays its due day.
    if ((seed.reviewCount ?? 0) > 0) warn(reader, 'next_review', `${dates}; ignored: the card is scheduled from last_reviewed`);
    else warn(reader, 'next_review', `${dates}; last_reviewed ignored: ${seed.reviewCount === null ? 'without review_count' : 'with review_count 0'} the card is new, due on next_review`);
  }
  return seed;
}

/** Tags as a YAML list or a comma-separated string; `#tag` is accepted as `tag`. */
export function readTags(reader: FieldReader): string[] {
  if (!has(reader, 'tags')) return [];
  const value = reader.data.tags;
  const raw: unknown[] = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [];
  if (!Array.isArray(value) && typeof value !== 'string') {
    warn(reader, 'tags', `expected a list or a comma-separated string, got ${JSON.stringify(value)}; ignored`);
    return [];
  }
  const tags: string[] = [];
  for (const item of raw) {
    if (typeof item !== 'string' && typeof item !== 'number') {
      warn(reader, 'tags', `a tag must be text, got ${JSON.stringify(item)}; ignored`);
      continue;
    }
    const tag = String(item).trim().replace(/^#/, '');
    if (tag !== '' && !tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

/** Lab names are file names under lab/ without `.md`: no paths, no spaces. */
export const LAB_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function readLab(reader: FieldReader): string | null {
  if (!has(reader, 'lab')) return null;
  const value = reader.data.lab;
  if (typeof value === 'string' && LAB_NAME_PATTERN.test(value.trim()) && !value.includes('..')) return value.trim();
  warn(reader, 'lab', `expected a lab name (a file in lab/ without .md), got ${JSON.stringify(value)}; ignored`);
  return null;
}

export function readString(reader: FieldReader, key: string): string | null {
  if (!has(reader, key)) return null;
  const value = reader.data[key];
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  warn(reader, key, `expected text, got ${JSON.stringify(value)}; ignored`);
  return null;
}
