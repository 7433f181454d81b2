// The real CardLabs of `kb review` and `kb quiz`: a card's lab run in place through the lab
// runner (its own settings, stored like `kb lab <name>`), and the line on the card's back
// from the newest stored run. The engine is imported only when a lab is first run.
import type { CardLabCheck, CardLabHooks, CardLabOutcome, CardLabs } from './card-labs.ts';
import { checksTally, NO_SUCH_LAB } from './card-labs.ts';
import { intervalLabel } from '../../srs/interval-label.ts';
import type { KbDatabase } from '../../store/db.ts';
import { describeSqliteFault } from '../../store/sqlite-fault.ts';
import { describeFsFault, isFsFault } from '../../kb/fs-fault.ts';
import { latestCompleteLabRun } from '../../store/lab-runs.ts';
import { formatMeasured, formatMetric } from '../../lab/metrics.ts';
import type { StoredCheck } from '../../lab/run.ts';
import { labRoots } from '../../kb/location.ts';
import { labNames } from '../../lab/lab-names.ts';
import { runChangesText, singleRunFigures, type StoredResult, type StoredSettings } from '../../lab/history.ts';

function measuredText(check: StoredCheck): string {
  // Against a server: where the ratio's figures came from, as kb lab's report says it.
  const notes = [check.measured === null ? (check.problem ?? 'not measured') : null, check.sides ?? null].filter((note) => note !== null).join('; ');
  const measured = check.measured === null ? '?' : formatMeasured(check.metric, check.measured);
  const value = notes ? `${measured} (${notes})` : measured;
  const where = check.at !== null && !check.metric.includes('@') ? ` (worst at ${check.at})` : '';
  return `${check.metric} = ${value}${where}; expected ${check.op} ${check.value}`;
}

export function cardLabCheck(check: StoredCheck): CardLabCheck {
  return { pass: check.pass, say: check.say, measured: measuredText(check) };
}

/**
 * "ttft-breakdown · reproduced 2/2 · 3h ago · queue_wait.p99 / ttft.p99 = 0.937": the newest
 * complete run (an interrupted one measured only part of the lab: "incomplete 0/2" hid the
 * result of the run before it), saying when a newer run stopped; with no complete run, the
 * newest finished one.
 */
export function latestRunLine(db: KbDatabase, lab: string, now: number): string {
  // Finished runs only: the newest may still be running elsewhere (or was killed) and has no result.
  const { complete, newer } = latestCompleteLabRun(db, lab);
  const run = complete ?? newer;
  if (!run || run.finishedAt === null) return `${lab} · not run yet`;
  const since = complete && newer ? ` · a newer run ${newer.status === 'failed' ? 'failed' : 'was interrupted'}` : '';
  const result = (run.result ?? {}) as StoredResult;
  const checks = result.checks ?? [];
  const ago = `${intervalLabel(Math.max(0, now - run.finishedAt))} ago`;
  if (run.status === 'failed') return `${lab} · failed · ${ago}`;
  // A lab with no expectations tested nothing: its stored verdict "reproduced" claimed a result it has not.
  const said = checks.length > 0 ? `${result.verdict ?? run.status} ${checksTally(checks)}` : run.status;
  const verdict = `${said}${run.status === 'partial' ? ' (interrupted)' : ''}`;
  // The key figure: the first expectation's measured value, the number the lab is about; with
  // none, the run's own headline figure (this one run is enough; the line showed no figure at all).
  const first = checks.find((check) => check.measured !== null);
  const headline = first ? null : (singleRunFigures(result)[0] ?? null);
  const figure = first
    ? ` · ${first.metric} = ${formatMeasured(first.metric, first.measured as number)}`
    : headline
      ? ` · ${headline.metric} = ${formatMeasured(headline.metric, headline.value)}`
      : '';
  // A run with --set, a preset or against a server tested something else than the lab as
  // written (its own exercise says the expectations will then not hold): say so beside the
  // verdict, or "not reproduced" under the card reads as the lab failing to show the card's point.
  const settings = (run.settings ?? {}) as StoredSettings;
  const changes = runChangesText(settings);
  const url = settings.endpoint?.url;
  const how = `${changes ? ` · with ${changes}` : ''}${url ? ` · against ${url}` : ''}`;
  return `${lab} · ${verdict} · ${ago}${figure}${how}${since}`;
}

export function cardLabRunner(db: KbDatabase, root: string): CardLabs {
  let known: Set<string> | null = null;
  return {
    latest: (lab, now) => {
      // Read once a session: a lab file added meanwhile is found by the next kb review.
      known ??= new Set(labNames(labRoots(root)));
      return known.has(lab) ? latestRunLine(db, lab, now) : `${lab} · ${NO_SUCH_LAB}`;
    },
    run: (lab, hooks) => runCardLab(db, root, lab, hooks),
  };
}

async function runCardLab(db: KbDatabase, root: string, name: string, hooks: CardLabHooks): Promise<CardLabOutcome> {
  const [{ loadLab }, { runLab, checkJson, storedResult }, { chartLines }] = await Promise.all([
    import('../../lab/lab-files.ts'),
    import('../../lab/run.ts'),
    import('../../lab/chart-view.ts'),
  ]);
  // A missing or broken lab file, or an engine failure (stored as failed), rejects: the panel shows why.
  let result;
  try {
    result = await runLab({ db, lab: loadLab(labRoots(root), name), overrides: [], signal: hooks.signal, onProgress: hooks.onProgress });
  } catch (error) {
    // A fault of the machine is said as kb says it on the command line, naming the database and
    // what to do (on a full disk the panel said only "database or disk is full", found as a user).
    const fault = isFsFault(error) ? describeFsFault(error) : describeSqliteFault(error, db.name);
    if (fault !== null) throw new Error(fault.replaceAll('run the command again', 'run the lab again'), { cause: error });
    throw error;
  }
  return {
    lab: result.lab,
    title: result.title,
    status: result.status,
    verdict: result.verdict,
    checks: result.checks.map((outcome) => cardLabCheck(checkJson(outcome))),
    // As kb lab history shows a run: a lab with no expectations otherwise showed no figure at all.
    figures: singleRunFigures(storedResult(result) as StoredResult).map(({ metric, value }) => `${metric} ${formatMetric(metric, value)}`),
    chart: result.chart ? chartLines(result.chart, { sweepKey: result.sweep?.key ?? null, sweepMetrics: result.sweepMetrics, chart: result.chart }) : [],
    note: result.note,
    runId: result.runId,
  };
}
