// One-line reports of kb rate and kb undo.
import { intervalLabel } from '../../srs/interval-label.ts';
import { GRADE_NAMES, STATE_NAMES, type FsrsState, type Grade } from '../../model/fsrs-state.ts';
import type { WritebackResult } from '../../kb/writeback.ts';

export function describeState(state: FsrsState, now: number): string {
  const due = state.due <= now ? 'due now' : `due in ${intervalLabel(state.due - now)} (${localMinute(state.due)})`;
  return `${STATE_NAMES[state.state]}, ${due}`;
}

/**
 * Local time to the minute, "2026-11-26 14:05": the same in every locale (toLocaleString gave
 * "11/26/2026, 2:05:08 PM", whose "PM" a narrow terminal wrapped onto a line of its own).
 */
function localMinute(at: number): string {
  const date = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

export function describeWriteback(result: WritebackResult | null): string | null {
  if (result === null) return null;
  if (result.status === 'written') return `frontmatter updated: ${result.restore.path}`;
  if (result.status === 'restored') return 'frontmatter restored';
  if (result.status === 'unchanged') return null;
  return `frontmatter not written: ${result.reason}`;
}

export function gradeName(grade: Grade): string {
  return GRADE_NAMES[grade];
}
