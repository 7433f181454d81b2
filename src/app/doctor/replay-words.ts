// kb doctor's words for a card whose schedule does not replay from its log
// (store/log-replay.ts), for a person to read: a rating by its name, times in the learner's own
// time zone to the minute, stability and difficulty rounded, a state by its name (it said
// "rating 3 of 2026-11-26T21:04:54.473Z ... stability 3.92105 vs 2.3065000000000002").
import { GRADE_LABELS, STATE_NAMES } from '../../model/fsrs-state.ts';
import type { ReplayProblem, StateDifference } from '../../store/log-replay.ts';
import { localMinuteLabel } from '../../srs/study-day.ts';

export function replayProblemText(problem: ReplayProblem): string {
  const found = shownFields(problem.differences, 'found');
  const expected = shownFields(problem.differences, 'expected');
  if (problem.kind === 'row') return `its schedule (${found}) is not what its log leaves (${expected})`;
  const { rating, action, at } = problem.entry;
  const label = rating === null ? null : (GRADE_LABELS as Record<number, string | undefined>)[rating];
  const what = rating !== null ? `rating ${label ?? rating}` : action ?? 'entry';
  return `its ${what} of ${localMinuteLabel(at)} starts from a state (${found}) the entry before did not leave (${expected}): a change was lost`;
}

/** "reps 0, stability 3.92": one side of the fields that differ. */
function shownFields(differences: readonly StateDifference[], side: 'found' | 'expected'): string {
  return differences.map((difference) => `${difference.field} ${shownValue(difference, side)}`).join(', ');
}

function shownValue(difference: StateDifference, side: 'found' | 'expected'): string {
  const value = difference[side];
  if (value === null || !Number.isFinite(value)) return value === null ? 'none' : String(value);
  switch (difference.field) {
    case 'due':
    case 'last_review':
      return localMinuteLabel(value);
    case 'state':
      return STATE_NAMES[value] ?? String(value);
    case 'stability':
    case 'difficulty': {
      // Two decimals, unless that hides the difference being reported: then as many as show it.
      const other = difference[side === 'found' ? 'expected' : 'found'];
      for (let digits = 2; digits < 12; digits++) {
        if (other === null || value.toFixed(digits) !== other.toFixed(digits)) return String(Number(value.toFixed(digits)));
      }
      return String(value);
    }
    default:
      return String(value);
  }
}
