// The one line kb review prints once its screen is gone: what this run did, and what is due
// now, later today and tomorrow. Pure text, so a test can read it at 80 columns.
import { durationLabel } from '../../srs/interval-label.ts';
import type { SessionSummary } from '../../app/review/screen-contract.ts';

export function summaryLine(summary: SessionSummary): string {
  // Quit before the first rating: "Reviewed 0 cards in 0s; again ..." said nothing a reader needs.
  const done =
    summary.cards === 0
      ? 'No cards reviewed'
      : `Reviewed ${summary.cards} card${summary.cards === 1 ? '' : 's'} in ${durationLabel(summary.elapsedMs)}; again ${Math.round((summary.again / summary.cards) * 100)}%`;
  const { learning, review, new: fresh } = summary.stillDue;
  const left = [[learning, 'learning'], [review, 'review'], [fresh, 'new']].filter(([count]) => count !== 0).map(([count, kind]) => `${count} ${kind}`);
  const still = left.length > 0 ? `; still due: ${left.join(', ')}` : '';
  // A card rated Good a minute ago comes back in minutes: "later today", not "tomorrow".
  const later = summary.laterToday > 0 ? `${summary.laterToday} more later today, ` : '';
  // "tomorrow 0 due" read as a misprint: none is said in words.
  const tomorrow = summary.tomorrow === 0 ? 'nothing due tomorrow' : `${summary.tomorrow} due tomorrow`;
  return `${done}${still}; ${later}${tomorrow}.`;
}
