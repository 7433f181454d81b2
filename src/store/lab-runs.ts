// The lab_runs table: one row per `kb lab <name>` run. A run's row is written when it
// starts (status 'partial', no finished_at), so a run killed at any moment still leaves a
// trace; it is updated to 'ok', 'partial' (interrupted) or 'failed' when it ends.
import type { KbDatabase } from './db.ts';

export type LabRunStatus = 'ok' | 'partial' | 'failed';

export interface LabRunRow {
  id: number;
  lab: string;
  startedAt: number;
  finishedAt: number | null;
  status: LabRunStatus;
  settings: unknown;
  result: unknown;
  backend: string;
  device: string | null;
}

interface RawRow {
  id: number;
  lab: string;
  started_at: number;
  finished_at: number | null;
  status: LabRunStatus;
  settings: string;
  result: string | null;
  backend: string;
  device: string | null;
}

function fromRaw(raw: RawRow): LabRunRow {
  return {
    id: raw.id,
    lab: raw.lab,
    startedAt: raw.started_at,
    finishedAt: raw.finished_at,
    status: raw.status,
    settings: JSON.parse(raw.settings),
    result: raw.result === null ? null : JSON.parse(raw.result),
    backend: raw.backend,
    device: raw.device,
  };
}

/** Records a run that has started; returns its id. */
export function startLabRun(db: KbDatabase, run: { lab: string; startedAt: number; settings: unknown; backend: string; device?: string | null }): number {
  const info = db
    .prepare("INSERT INTO lab_runs (lab, started_at, finished_at, status, settings, result, backend, device) VALUES (?, ?, NULL, 'partial', ?, NULL, ?, ?)")
    .run(run.lab, run.startedAt, JSON.stringify(run.settings), run.backend, run.device ?? null);
  return Number(info.lastInsertRowid);
}

/**
 * Records how a run ended, with whatever it measured. `backend`: the one that ran, where it
 * differs from the one asked for at the start (`auto` resolved to cpu or webgpu).
 */
export function finishLabRun(db: KbDatabase, id: number, end: { status: LabRunStatus; finishedAt: number; result: unknown; device?: string | null; backend?: string | null }): void {
  db.prepare('UPDATE lab_runs SET status = ?, finished_at = ?, result = ?, device = COALESCE(?, device), backend = COALESCE(?, backend) WHERE id = ?').run(
    end.status,
    end.finishedAt,
    JSON.stringify(end.result),
    end.device ?? null,
    end.backend ?? null,
    id,
  );
}

/** A lab's runs, newest first. */
export function labRunsOf(db: KbDatabase, lab: string, limit = 50): LabRunRow[] {
  const rows = db.prepare('SELECT * FROM lab_runs WHERE lab = ? ORDER BY started_at DESC, id DESC LIMIT ?').all(lab, limit) as RawRow[];
  return rows.map(fromRaw);
}

/** The runs of every lab, newest first (`kb lab history` without a name). */
export function recentLabRuns(db: KbDatabase, limit = 50): LabRunRow[] {
  const rows = db.prepare('SELECT * FROM lab_runs ORDER BY started_at DESC, id DESC LIMIT ?').all(limit) as RawRow[];
  return rows.map(fromRaw);
}

export function labRun(db: KbDatabase, id: number): LabRunRow | null {
  const raw = db.prepare('SELECT * FROM lab_runs WHERE id = ?').get(id) as RawRow | undefined;
  return raw ? fromRaw(raw) : null;
}

/** The newest finished run of each lab (for `kb lab list` and a card's back). */
export function latestLabRuns(db: KbDatabase): Map<string, LabRunRow> {
  const rows = db
    .prepare(
      `SELECT * FROM lab_runs AS r
       WHERE finished_at IS NOT NULL
         AND id = (SELECT id FROM lab_runs WHERE lab = r.lab AND finished_at IS NOT NULL ORDER BY started_at DESC, id DESC LIMIT 1)`,
    )
    .all() as RawRow[];
  return new Map(rows.map((raw) => [raw.lab, fromRaw(raw)]));
}

/**
 * A lab's newest complete ('ok') run, and its newest finished run when that is a newer one
 * (interrupted or failed): a card's back shows the complete run and says a newer one stopped.
 */
export function latestCompleteLabRun(db: KbDatabase, lab: string): { complete: LabRunRow | null; newer: LabRunRow | null } {
  const newest = (where: string) =>
    db.prepare(`SELECT * FROM lab_runs WHERE lab = ? AND finished_at IS NOT NULL ${where} ORDER BY started_at DESC, id DESC LIMIT 1`).get(lab) as RawRow | undefined;
  const complete = newest("AND status = 'ok'");
  const finished = newest('');
  return { complete: complete ? fromRaw(complete) : null, newer: finished && finished.id !== complete?.id ? fromRaw(finished) : null };
}
