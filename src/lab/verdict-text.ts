// The verdict line of a lab run, one wording for the report of `kb lab` and a card's lab
// panel in `kb review` and `kb quiz` (they said "2 of 2 could not be judged" and "0 of 2 could
// be judged" for the same run). Types only: the panel must not load the engine to say it.
import type { LabRunStatus } from '../store/lab-runs.ts';
import type { LabVerdict } from './run.ts';

/**
 * "Verdict: not reproduced (0/2 expectations hold; 1 could not be judged)": why an incomplete
 * verdict is one (expectations left unjudged, or a run stopped before its end), and the
 * unjudged ones beside a known failure.
 */
export function verdictText(verdict: LabVerdict, checks: readonly { pass: boolean | null }[], status: LabRunStatus): string {
  const unjudged = checks.filter((c) => c.pass === null).length;
  if (verdict === 'incomplete') {
    if (unjudged > 0) return `Verdict: incomplete (${unjudged} of ${checks.length} expectations could not be judged)`;
    return `Verdict: incomplete (${status === 'partial' ? 'the run was interrupted' : `the run ${status}`}: the expectations are judged on what finished)`;
  }
  const held = checks.filter((c) => c.pass === true).length;
  return `Verdict: ${verdict} (${held}/${checks.length} expectations hold${unjudged > 0 ? `; ${unjudged} could not be judged` : ''})`;
}
