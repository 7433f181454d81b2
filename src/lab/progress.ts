// What a running lab reports as it goes: which point of a sweep, which run (warm-up or
// measured), how many of its requests are done, and the time since the lab started.

export interface LabProgress {
  /** The sweep point's label, or null for a single-run lab. */
  point: string | null;
  /** The swept setting (engine.prefixCaching), so a label such as `true` says what is true. */
  sweepKey?: string;
  /** 0-based index of the point, and how many points run. */
  pointIndex: number;
  points: number;
  phase: 'warmup' | 'measure';
  /** 1-based run within the phase, and the runs in that phase. */
  run: number;
  runs: number;
  requestsDone: number;
  requestsTotal: number;
  elapsedMs: number;
}

export function formatElapsed(ms: number): string {
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** "[#######.......] 120/256 requests · run 1/1 · prefillMaxBatch=16 (1/3) · 4.2 s", fit to `width` columns. */
export function progressLine(p: LabProgress, width: number): string {
  const phase = p.phase === 'warmup' ? `warm-up ${p.run}/${p.runs}` : `run ${p.run}/${p.runs}`;
  const name = p.sweepKey === undefined ? `point ${p.point}` : `${p.sweepKey.split('.').pop()}=${p.point}`;
  const line = (shownName: string, unit: string) => {
    const point = p.point === null ? '' : ` · ${shownName} (${p.pointIndex + 1}/${p.points})`;
    const text = ` ${p.requestsDone}/${p.requestsTotal}${unit} · ${phase}${point} · ${formatElapsed(p.elapsedMs)}`;
    const barWidth = Math.max(10, Math.min(40, width - text.length - 2));
    const filled = p.requestsTotal > 0 ? Math.round((barWidth * p.requestsDone) / p.requestsTotal) : 0;
    return `[${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}]${text}`;
  };
  // Too wide, the word "requests" goes, then the end of the point's name (calibrate's
  // "calibrate=decode x256 @16"), so the clock at the end stays whole: cut from the end, the
  // line read "(12/15) · 3" on 80 columns.
  let shown = line(name, ' requests');
  if (shown.length > width) shown = line(name, '');
  const keep = name.length - (shown.length - width) - 1;
  if (shown.length > width && p.point !== null && keep >= 1) shown = line(`${name.slice(0, keep)}…`, '');
  return shown.length > width ? shown.slice(0, Math.max(0, width)) : shown;
}
