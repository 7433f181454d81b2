// Dates as notes write them (`2025-10-19`) and as kb stores them (ms since the epoch).
// A study day starts at the configured local time (dayStartsAt, 04:00 by default), as in
// Anki: a review at 1 am still counts for the day before.

/** The local time of day, in ms after midnight, for an "HH:MM" day start. */
export function dayStartOffsetMs(dayStartsAt: string): number {
  const [hours, minutes] = dayStartsAt.split(':').map(Number);
  return (hours * 60 + minutes) * 60_000;
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
    const midnight = new Date(year, month - 1, date);
    if (midnight.getFullYear() !== year || midnight.getMonth() !== month - 1 || midnight.getDate() !== date) return null;
    return midnight.getTime() + dayStartOffsetMs(dayStartsAt);
  }
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

/** The study day (local `YYYY-MM-DD`) that a moment belongs to. */
export function studyDay(ms: number, dayStartsAt: string): string {
  const shifted = new Date(ms - dayStartOffsetMs(dayStartsAt));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${shifted.getFullYear()}-${pad(shifted.getMonth() + 1)}-${pad(shifted.getDate())}`;
}
