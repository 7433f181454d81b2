// The progress bar of `kb lab` on stderr, as plain text: redrawn in place on a terminal
// (at most ~10 times a second, and every half second so the clock keeps moving while a long
// step runs), one line per run when stderr is a pipe or a file, written as the run ends (a
// line written as it starts would say `1/256 requests` and be the last a log shows), so logs
// stay readable and stdout stays clean for the report or --json.
import { progressLine, type LabProgress } from '../lab/progress.ts';
import { terminalColumns } from './text/terminal-columns.ts';

export interface ProgressSink {
  update(progress: LabProgress): void;
  /**
   * Ctrl-C: the bar stays as it is (a pipe's log gets the line of the run it stopped), its
   * clock stops and later updates are ignored, so the stop's message below it is the last
   * thing on the screen. (The bar ran on under "stopping the lab" while a webgpu engine
   * finished starting, a minute or more, and read as if the Ctrl-C had done nothing.)
   */
  freeze(): void;
  /** Clears the bar (terminal) before the report is printed, and stops its timer. */
  done(): void;
}

export function textProgress(stream: NodeJS.WriteStream, now: () => number = () => performance.now()): ProgressSink {
  const interactive = Boolean(stream.isTTY);
  let lastDraw = -Infinity;
  let lastRunKey = '';
  let drawn = false;
  let latest: { progress: LabProgress; at: number } | null = null;
  let ticker: NodeJS.Timeout | null = null;
  // On a pipe: the run in progress, and when it last reported, until its line is written.
  let unwritten: { progress: LabProgress; at: number } | null = null;
  let frozen = false;
  // Short of the last column: the terminal's, else $COLUMNS when piped, else 80. On a terminal
  // the cursor stays at the bar's end, where Ctrl-C echoes "^C": two columns more are left for
  // it (a bar 79 wide on 80 columns wrapped the echo onto a line of its own).
  const width = () => (terminalColumns(stream) ?? 80) - (interactive ? 3 : 1);
  /**
   * `stoppedNow`: the run was cut off (Ctrl-C, an error) rather than ended, so its line gives
   * the clock at the stop, as the terminal's bar does; the time of its last report was the
   * run's start when no request had finished, and the log read "0/256 requests · 0.0 s".
   */
  const writeRun = (stoppedNow = false) => {
    if (unwritten !== null) {
      const { progress, at } = unwritten;
      const shown = stoppedNow ? { ...progress, elapsedMs: progress.elapsedMs + (now() - at) } : progress;
      stream.write(`${progressLine(shown, width())}\n`);
    }
    unwritten = null;
  };

  const draw = () => {
    if (!latest) return;
    const t = now();
    const progress = { ...latest.progress, elapsedMs: latest.progress.elapsedMs + (t - latest.at) };
    lastDraw = t;
    stream.write(`\r\x1b[2K${progressLine(progress, width())}`);
    drawn = true;
  };

  return {
    update(progress) {
      if (frozen) return;
      const runKey = `${progress.point}|${progress.phase}|${progress.run}`;
      const newRun = runKey !== lastRunKey;
      lastRunKey = runKey;
      if (!interactive) {
        // A run that ended short of its total (requests rejected) is written when the next starts.
        if (newRun) writeRun();
        unwritten = { progress, at: now() };
        if (progress.requestsDone >= progress.requestsTotal) writeRun();
        return;
      }
      latest = { progress, at: now() };
      if (ticker === null) {
        ticker = setInterval(draw, 500);
        ticker.unref();
      }
      const finished = progress.requestsDone === progress.requestsTotal;
      if (finished || newRun || now() - lastDraw >= 100) draw();
    },
    freeze() {
      if (frozen) return;
      frozen = true;
      if (ticker !== null) clearInterval(ticker);
      ticker = null;
      if (interactive) {
        // Drawn once more, with the clock at the stop; then left on the screen, not cleared.
        draw();
        drawn = false;
      } else writeRun(true);
    },
    done() {
      // A pipe's log says where an unfinished run stopped (Ctrl-C, an error), and when.
      writeRun(true);
      if (ticker !== null) clearInterval(ticker);
      ticker = null;
      if (interactive && drawn) stream.write('\r\x1b[2K');
      drawn = false;
    },
  };
}
