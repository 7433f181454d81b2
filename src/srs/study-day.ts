// Review days, and dates as notes write them (`2025-10-19`). A review day runs from the local
// day start (default 04:00) to the next one, as in Anki, so a late-night session still counts
// for the day it belongs to.
//
// ts-fsrs counts elapsed days between UTC calendar dates. Handing it a time shifted by
// the local UTC offset minus the day start makes those UTC dates equal the local review
// days; its results are shifted back by the same amount.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

// The last day start parsed: a replay converts clocks several times per event, always with one.
let parsedDayStart: { text: string; minutes: number } | null = null;

/** Minutes after local midnight for 'HH:MM'. */
export function parseDayStart(dayStartsAt: string): number {
  if (parsedDayStart?.text === dayStartsAt) return parsedDayStart.minutes;
  const match = /^(\d{1,2}):(\d{2})$/.exec(dayStartsAt);
  const hours = match ? Number(match[1]) : NaN;
  const minutes = match ? Number(match[2]) : NaN;
  if (!(hours >= 0 && hours < 24 && minutes >= 0 && minutes < 60)) {
    throw new Error(`dayStartsAt: "${dayStartsAt}" is not a time like 04:00`);
  }
  parsedDayStart = { text: dayStartsAt, minutes: hours * 60 + minutes };
  return parsedDayStart.minutes;
}

/** The start of the review day that contains `now` (the latest local day start at or before it). */
export function reviewDayStart(now: Date | number, dayStartsAt: string): Date {
  const at = new Date(now);
  const startMinutes = parseDayStart(dayStartsAt);
  const start = new Date(at.getFullYear(), at.getMonth(), at.getDate(), 0, startMinutes);
  if (start.getTime() > at.getTime()) {
    return new Date(at.getFullYear(), at.getMonth(), at.getDate() - 1, 0, startMinutes);
  }
  return start;
}

/** The start of the review day after the one that contains `now`. */
export function nextReviewDayStart(now: Date | number, dayStartsAt: string): Date {
  const start = reviewDayStart(now, dayStartsAt);
  return new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1, 0, parseDayStart(dayStartsAt));
}

/** The local calendar date of the review day containing `at`, as 'YYYY-MM-DD'. */
export function reviewDayLabel(at: Date | number, dayStartsAt: string): string {
  const start = reviewDayStart(at, dayStartsAt);
  const month = String(start.getMonth() + 1).padStart(2, '0');
  const day = String(start.getDate()).padStart(2, '0');
  return `${start.getFullYear()}-${month}-${day}`;
}

/**
 * A moment in the learner's own time zone to the minute, 'YYYY-MM-DD HH:MM' (without the year
 * where `withYear` is false, as ls does for this year's files): the same in every locale.
 */
export function localMinuteLabel(at: Date | number, withYear = true): string {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  const day = `${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
  return withYear ? `${d.getFullYear()}-${day}` : day;
}

/**
 * The learner's own calendar date of a moment, 'YYYY-MM-DD' (a date kb stored in UTC, such as
 * kb.json's fittedAt, said as the learner's clock had it: its UTC date is a day off near midnight
 * in a zone far from UTC).
 */
export function localDateLabel(at: Date | number): string {
  return localMinuteLabel(at).slice(0, 10);
}

// One Date for shiftMs's offsets: a replay asks for two a rating.
const offsetProbe = new Date(0);

/** How far the scheduling clock is ahead of real time at `at`. */
export function shiftMs(at: Date | number, dayStartsAt: string): number {
  offsetProbe.setTime(typeof at === 'number' ? at : at.getTime());
  return -offsetProbe.getTimezoneOffset() * MINUTE - parseDayStart(dayStartsAt) * MINUTE;
}

/** A real time on the clock ts-fsrs sees, whose UTC dates are local review days. */
export function toSchedulingClock(real: number, dayStartsAt: string): Date {
  return new Date(real + shiftMs(real, dayStartsAt));
}

/**
 * A time ts-fsrs produced back on the real clock. `reference` is the real time the
 * computation was made at, so an interval of N days lands N * 24 h after it.
 */
export function fromSchedulingClock(shifted: Date, reference: number, dayStartsAt: string): number {
  return shifted.getTime() - shiftMs(reference, dayStartsAt);
}

/** Whole review days from the day of `from` to the day of `to` (negative when `to` is earlier). */
export function reviewDaysBetween(from: number, to: number, dayStartsAt: string): number {
  const a = toSchedulingClock(from, dayStartsAt);
  const b = toSchedulingClock(to, dayStartsAt);
  const utcA = Date.UTC(a.getUTCFullYear(), a.getUTCMonth(), a.getUTCDate());
  const utcB = Date.UTC(b.getUTCFullYear(), b.getUTCMonth(), b.getUTCDate());
  return Math.round((utcB - utcA) / DAY);
}

/**
 * A frontmatter date as ms since the epoch, or null when it is missing or not a date.
 * `YYYY-MM-DD` is that local day at the day start; a timestamp (`2025-10-19T08:30…`) is taken as written.
 */
export function parseFrontmatterDate(value: string | null, dayStartsAt: string): number | null {
  if (value === null) return null;
  const text = value.trim();
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (day) {
    const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const start = new Date(year, month - 1, date, 0, parseDayStart(dayStartsAt));
    if (start.getFullYear() !== year || start.getMonth() !== month - 1 || start.getDate() !== date) return null;
    return start.getTime();
  }
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}
