// One-line reports of kb rate and kb undo.
import { intervalLabel } from '../../srs/interval-label.ts';
import { localMinuteLabel } from '../../srs/study-day.ts';
import { GRADE_LABELS, GRADE_NAMES, STATE_NAMES, type FsrsState, type Grade } from '../../model/fsrs-state.ts';
import type { WritebackResult } from '../../kb/writeback.ts';

export function describeState(state: FsrsState, now: number): string {
  // Local time to the minute, the same in every locale (toLocaleString's "2:05:08 PM" put "PM"
  // on a line of its own at 80 columns).
  const due = state.due <= now ? 'due now' : `due in ${intervalLabel(state.due - now)} (${localMinuteLabel(state.due)})`;
  return `${STATE_NAMES[state.state]}, ${due}`;
}

export function describeWriteback(result: WritebackResult | null): string | null {
  if (result === null) return null;
  if (result.status === 'written') return `frontmatter updated: ${result.restore.path}`;
  if (result.status === 'restored') return 'frontmatter restored';
  if (result.status === 'unchanged') return null;
  return `frontmatter not written: ${result.reason}`;
}

/** The answer's name in JSON and as kb rate takes it: good. */
export function gradeName(grade: Grade): string {
  return GRADE_NAMES[grade];
}

/** The answer in a sentence, as the review screen's answer bar names it: undid Good. */
export function gradeLabel(grade: Grade): string {
  return GRADE_LABELS[grade];
}
