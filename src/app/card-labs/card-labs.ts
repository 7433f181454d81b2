// What the review and quiz screens need to run a card's lab in place and to show its latest
// result on the card's back. The real one (src/app/card-labs/card-lab-runner.ts) wraps the lab runner
// and the lab_runs table; component tests pass a fake, so no engine runs there.
import type { LabProgress } from '../../lab/progress.ts';

export interface CardLabCheck {
  /** null: could not be judged (the run was interrupted, or a metric is missing). */
  pass: boolean | null;
  /** The phenomenon in words (the lab file's `say:`). */
  say: string;
  /** "queue_wait.p99 / ttft.p99 = 0.937; expected >= 0.8". */
  measured: string;
}

export interface CardLabOutcome {
  lab: string;
  title: string;
  status: 'ok' | 'partial' | 'failed';
  verdict: 'reproduced' | 'not reproduced' | 'incomplete' | 'no expectations';
  checks: CardLabCheck[];
  /** A single run's headline figures ("ttft.p99 16.27 ms"), as kb lab history shows them; empty for a sweep or an interrupted run. */
  figures: string[];
  /** The lab's chart drawn as text lines; empty when the lab has no chart. */
  chart: string[];
  /** Why a run is partial or failed. */
  note: string | null;
  runId: number;
}

export interface CardLabHooks {
  signal: AbortSignal;
  onProgress(progress: LabProgress): void;
}

/**
 * What the lab line says of a card whose lab file is nowhere (a misspelt `lab:`, a lab
 * removed): with nothing to run, "not run yet (l runs it)" had sent the learner to a key that
 * could only fail. kb scan and kb doctor warn of the same link.
 */
export const NO_SUCH_LAB = 'no such lab (kb lab list names them)';

export function isMissingLabLine(line: string): boolean {
  return line.endsWith(` · ${NO_SUCH_LAB}`);
}

export interface CardLabs {
  /** One line on the latest stored run of `lab` ("ttft-breakdown · reproduced 2/2 · 3h ago · ..."). */
  latest(lab: string, now: number): string;
  /** Runs the lab with its own settings and stores the run (partial when `signal` aborts). Rejects with a one-line reason when it cannot run. */
  run(lab: string, hooks: CardLabHooks): Promise<CardLabOutcome>;
}

/** "2/2" or "1 of 2 judged": how many expectations hold. */
export function checksTally(checks: readonly { pass: boolean | null }[]): string {
  return `${checks.filter((c) => c.pass === true).length}/${checks.length}`;
}
