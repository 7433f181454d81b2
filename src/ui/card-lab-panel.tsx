// A card's lab run in place, shared by the review and quiz screens: `l` opens the panel, the
// progress bar shows while the lab runs (Esc, q or Ctrl-C stops it; the run is stored as
// partial), then the chart and each expectation's verdict; any other key goes back to the
// card, and the screen is told how long the panel was open so that time is not counted as
// time spent answering the card.
import { Box, Text, type Key } from 'ink';
import { useEffect, useReducer, useRef } from 'react';
import type { LabProgress } from '../lab/progress.ts';
import type { CardLabOutcome, CardLabs } from '../app/card-labs/card-labs.ts';
import { verdictText } from '../lab/verdict-text.ts';
import { LabProgressBar } from './lab-progress.tsx';
import { clampScroll, Viewport } from './review/Viewport.tsx';
import { fitLines } from './text/fit-lines.ts';
import { wrapHanging, wrapText } from './text/line-wrap.ts';
import { packParts } from './text/pack-parts.ts';
import stringWidth from 'string-width';

export type LabPanelState =
  | { phase: 'running'; lab: string; progress: LabProgress | null; stopping: boolean }
  | { phase: 'done'; lab: string; outcome: CardLabOutcome }
  | { phase: 'failed'; lab: string; message: string };

export interface CardLabControl {
  /** What the panel shows, or null while the card is shown. */
  state: LabPanelState | null;
  scroll: number;
  /**
   * Whether the report is taller than the panel, so j, k, arrows and pages scroll it (left out:
   * taken as scrolling). One that fits is left by any key, and its footer says only that.
   */
  scrolls?: boolean;
  setMaxScroll(max: number): void;
  /** Runs the card's lab; returns a line for the status bar instead when there is nothing to run. */
  open(lab: string | null): string | null;
  /** A key pressed while the panel is shown. */
  key(input: string, key: Key): void;
  /** Counts finished runs, so a card's back re-reads its lab's latest result. */
  runs: number;
}

/** Redraws of the progress bar at most this often (a sim run reports thousands of requests a second). */
const PROGRESS_DRAW_MS = 100;

interface Held {
  state: LabPanelState | null;
  openedAt: number;
  scroll: number;
  maxScroll: number;
  runs: number;
  abort: AbortController | null;
}

export function useCardLab(labs: CardLabs | undefined, now: () => number, onClose: (pausedMs: number) => void, pageRows: number): CardLabControl {
  // Held in a ref as well as drawn: keys can arrive faster than React renders.
  const held = useRef<Held>({ state: null, openedAt: 0, scroll: 0, maxScroll: 0, runs: 0, abort: null });
  const [, redraw] = useReducer((count: number) => count + 1, 0);
  const set = (patch: Partial<Held>) => {
    held.current = { ...held.current, ...patch };
    redraw();
  };
  // Leaving the screen mid-run stops the run (it is stored as partial).
  useEffect(
    () => () => {
      held.current.abort?.abort();
      held.current.abort = null;
    },
    [],
  );

  const open = (lab: string | null): string | null => {
    if (lab === null) return 'this card has no lab (a lab: line under its heading links one)';
    if (!labs) return 'labs cannot run from here';
    const abort = new AbortController();
    const opened: LabPanelState = { phase: 'running', lab, progress: null, stopping: false };
    set({ state: opened, openedAt: now(), scroll: 0, maxScroll: 0, abort });
    let drawnAt = -Infinity;
    let drawnRun = '';
    const onProgress = (progress: LabProgress) => {
      const state = held.current.state;
      if (state?.phase !== 'running' || abort.signal.aborted) return;
      const run = `${progress.point}|${progress.phase}|${progress.run}`;
      const at = performance.now();
      if (at - drawnAt < PROGRESS_DRAW_MS && run === drawnRun && progress.requestsDone < progress.requestsTotal) return;
      drawnAt = at;
      drawnRun = run;
      set({ state: { ...state, progress } });
    };
    const settle = (state: LabPanelState) => {
      // Unmounted (the screen quit) or a newer panel: nothing to show.
      if (held.current.abort !== abort) return;
      set({ state, abort: null, runs: held.current.runs + 1 });
    };
    labs.run(lab, { signal: abort.signal, onProgress }).then(
      (outcome) => settle({ phase: 'done', lab, outcome }),
      (error: unknown) => settle({ phase: 'failed', lab, message: error instanceof Error ? error.message : String(error) }),
    );
    return null;
  };

  const key = (input: string, key: Key) => {
    const { state, scroll, maxScroll, openedAt } = held.current;
    if (!state) return;
    if (state.phase === 'running') {
      if ((key.escape || input === 'q' || (key.ctrl && input === 'c')) && !state.stopping) {
        set({ state: { ...state, stopping: true } });
        held.current.abort?.abort();
      }
      return;
    }
    // A report that fits has nothing to scroll: j or an arrow goes back to the card, as any key
    // does, rather than doing nothing under a footer that offered scrolling (found as a user).
    const by = maxScroll === 0 ? 0 : key.downArrow || input === 'j' ? 1 : key.upArrow || input === 'k' ? -1 : key.pageDown ? pageRows : key.pageUp ? -pageRows : 0;
    if (by !== 0) return set({ scroll: clampScroll(scroll + by, maxScroll) });
    set({ state: null, scroll: 0 });
    onClose(Math.max(0, now() - openedAt));
  };

  return {
    state: held.current.state,
    scroll: held.current.scroll,
    scrolls: held.current.maxScroll > 0,
    setMaxScroll: (max) => {
      const scrolled = held.current.maxScroll > 0;
      held.current.maxScroll = max;
      // A larger terminal lowers the limit: the offset comes down with it (kept, it left rows blank).
      if (held.current.scroll > max) set({ scroll: max });
      // The footer says whether j and k scroll: drawn again when that changes.
      else if (scrolled !== max > 0) redraw();
    },
    open,
    key,
    runs: held.current.runs,
  };
}

const MARKS = { true: ['✓', 'green'], false: ['✗', 'red'], null: ['?', 'yellow'] } as const;

/** A run of a lab without expectations checked nothing: neither green nor a warning. */
const VERDICT_COLORS: Record<CardLabOutcome['verdict'], string | undefined> = {
  reproduced: 'green',
  'not reproduced': 'red',
  incomplete: 'yellow',
  'no expectations': undefined,
};

function verdictLine(outcome: CardLabOutcome): string {
  if (outcome.checks.length === 0) return `Run ${outcome.status}: this lab states no expectations`;
  return verdictText(outcome.verdict, outcome.checks, outcome.status);
}

const MORE = 'More: ';

/**
 * "Run #18 stored (ok). More: kb lab show x · kb lab history x", on one row where it fits; else
 * the commands on rows of their own, each whole (run together, a narrow panel broke one across
 * two), those after the first under "More: " (a bare "kb lab history x" below read as
 * something apart from the list).
 */
function footerRows(outcome: CardLabOutcome, width: number): string[] {
  const stored = `Run #${outcome.runId} stored (${outcome.status}).`;
  const commands = [`kb lab show ${outcome.lab}`, `kb lab history ${outcome.lab}`];
  const one = `${stored} ${MORE}${commands.join(' · ')}`;
  if (stringWidth(one) <= width) return [one];
  const rows = packParts(commands, ' · ', Math.max(10, width - MORE.length));
  return [stored, ...rows.map((row, i) => `${i === 0 ? MORE : ' '.repeat(MORE.length)}${row}`)];
}

/** Where a check's measured line starts, under its sentence. */
const MEASURED_INDENT = 4;

function Report({ outcome, width }: { outcome: CardLabOutcome; width: number }) {
  return (
    <Box flexDirection="column">
      <Text bold>{`lab ${outcome.lab}: ${outcome.title}`}</Text>
      {outcome.figures.length > 0 ? (
        <Box marginTop={1}>
          {/* Broken between figures, never inside one. */}
          <Text>{packParts(outcome.figures, ' · ', width).join('\n')}</Text>
        </Box>
      ) : null}
      {outcome.chart.length > 0 ? (
        <Box flexDirection="column" marginTop={1}>
          {/* Wrapped by kb as kb lab prints it, a note under its label ("SLO: ", "Growth exponent ..."); Ink's wrap began the next row at column 0 with the space it broke at. */}
          {fitLines(outcome.chart.join('\n'), width)
            .split('\n')
            .map((line, i) => (
              <Text key={i}>{line}</Text>
            ))}
        </Box>
      ) : null}
      <Box flexDirection="column" marginTop={1}>
        {outcome.checks.map((check, i) => {
          const [mark, color] = MARKS[String(check.pass) as 'true' | 'false' | 'null'];
          return (
            <Box key={i} flexDirection="column">
              {/* Wrapped by kb under its text, not its mark (Ink's wrap began the next row at column 0). */}
              <Text color={color}>{wrapHanging(`${mark} `, check.say, width).join('\n')}</Text>
              {/* Wrapped by kb (Ink's wrap started each row after the first with the space it broke at). */}
              <Box paddingLeft={MEASURED_INDENT}>
                <Text dimColor>{wrapText(check.measured, Math.max(10, width - MEASURED_INDENT)).join('\n')}</Text>
              </Box>
            </Box>
          );
        })}
      </Box>
      <Box marginTop={1}>
        <Text bold color={VERDICT_COLORS[outcome.verdict]}>
          {verdictLine(outcome)}
        </Text>
      </Box>
      {outcome.note ? <Text color="yellow">{`Note: ${outcome.note}`}</Text> : null}
      <Text dimColor>{footerRows(outcome, width).join('\n')}</Text>
    </Box>
  );
}

/** The panel in place of the card, `height` rows including its key hint line. */
export function CardLabPanel({ control, height, width }: { control: CardLabControl; height: number; width: number }) {
  const { state } = control;
  if (!state) return null;
  if (state.phase === 'running') {
    return (
      <Box flexDirection="column" height={height}>
        <Text bold>{`Running lab ${state.lab}…`}</Text>
        <LabProgressBar progress={state.progress} />
        <Box marginTop={1}>
          <Text color={state.stopping ? 'yellow' : undefined} dimColor={!state.stopping}>
            {state.stopping ? 'stopping; the partial run is being stored…' : 'Esc stops the run (what finished is stored, marked partial)'}
          </Text>
        </Box>
      </Box>
    );
  }
  return (
    <Box flexDirection="column" height={height}>
      <Viewport height={height - 1} scroll={control.scroll} onMaxScroll={control.setMaxScroll}>
        {state.phase === 'done' ? (
          <Report outcome={state.outcome} width={width} />
        ) : (
          <Text color="red">{`lab ${state.lab} could not run: ${state.message}`}</Text>
        )}
      </Viewport>
      <Text dimColor>{panelFooter(width, control.scrolls ?? true)}</Text>
    </Box>
  );
}

/**
 * The panel's keys: j and k scroll the report (it said only "any other key: back to the card",
 * and j scrolled, found as a user), said shorter where the panel is narrow.
 */
export function panelFooter(width: number, scrolls = true): string {
  if (!scrolls) return 'any key: back to the card';
  const full = 'j k, arrows, PgUp PgDn scroll · any other key: back to the card';
  return full.length <= width ? full : 'j k scroll · other keys: back';
}
