// kb review's screen. State lives here; the controller does the work and the components
// below only draw. Keys follow Anki: Space/Enter shows the answer (and then means Good),
// 1-4 answer, u undo, b bury, s suspend, e edit, f the whole note, l the card's lab, ? help,
// q quit. A calc card also takes a typed number (calc-keys.ts), checked on Enter.
import { Box, Text, useApp, useWindowSize, type Key } from 'ink';
import { spawnSync } from 'node:child_process';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { CardLabPanel, useCardLab } from '../card-lab-panel.tsx';
import { AnswerBar } from './AnswerBar.tsx';
import { CalcAnswerLine, type CalcVerdict } from './CalcAnswerLine.tsx';
import { reviewKey } from './review-keys.ts';
import { CardView } from './CardView.tsx';
import type { ActionResult, ReviewController, ScreenNext } from '../../app/review/screen-contract.ts';
import { Header } from './Header.tsx';
import { HelpPanel } from './HelpPanel.tsx';
import { SummaryView } from './SummaryView.tsx';
import { Viewport } from './Viewport.tsx';
import { useScroll } from './use-scroll.ts';
import { asError, exitOnRejection, INTERRUPTED, useKeyQueue } from '../screen-input.ts';
import { NO_JOB_CONTROL, stopUntilResumed } from '../job-control.ts';
import { toFreshLine } from '../fresh-line.ts';
import { editorFailure, type EditorExit } from '../../kb/editor.ts';
import { wrapText } from '../text/line-wrap.ts';

export interface ReviewScreenProps {
  controller: ReviewController;
  startedAt: number;
  /** The time source (tests pass a fixed clock). */
  now?: () => number;
  /**
   * Runs the editor with the terminal handed over; the real screen uses Ink's suspendTerminal.
   * Returns how it ended (nothing: it exited 0).
   */
  runEditor?: (command: string, args: string[]) => Promise<EditorExit | void>;
  /** A line shown in the status row until the first key's own message replaces it. */
  notice?: string;
}

const TICK_MS = 1000;
/** Rows taken by the header, the status line and the answer bar. */
const CHROME_ROWS = 4;

export function ReviewScreen({ controller, startedAt, now = Date.now, runEditor, notice }: ReviewScreenProps) {
  const { exit, suspendTerminal } = useApp();
  const { columns, rows } = useWindowSize();
  const width = Math.max(20, (columns || 80) - 1);
  const height = Math.max(6, rows || 24);

  const [current, setCurrent] = useState<ScreenNext>(() => controller.next(now()));
  const [shownAt, setShownAt] = useState(now);
  const [revealed, setRevealed] = useState(false);
  const [full, setFull] = useState(false);
  const [help, setHelp] = useState(false);
  // The key list scrolls on its own where it is taller than the screen (a phone's terminal).
  const helpScroll = useScroll();
  const scroll = useScroll();
  const [message, setMessage] = useState<string | null>(notice ?? null);
  const [clock, setClock] = useState(now);
  const [busy, setBusy] = useState(false);
  // Cards being read again after their file changed outside kb (whenFresh): keys wait meanwhile.
  const [rereading, setRereading] = useState(0);
  // A calc card: the number being typed, then the check's verdict.
  const [typed, setTyped] = useState('');
  // Why a typed calc answer was not checked ("GB" does not convert to ms): under the answer line, as kb quiz has it.
  const [calcRetry, setCalcRetry] = useState<string | null>(null);
  const [verdict, setVerdict] = useState<CalcVerdict | null>(null);

  const card = current.kind === 'card' ? current.card : null;
  // The time the lab panel was open is not time spent recalling the card.
  const lab = useCardLab(controller.labs, now, (pausedMs) => setShownAt((at) => at + pausedMs), Math.max(1, height - CHROME_ROWS - 1));
  const labLine = useMemo(
    () => (card?.lab && revealed ? controller.labs.latest(card.lab, now()) : null),
    // lab.runs: a run just finished, so the latest result changed.
    [card, revealed, controller, now, lab.runs],
  );
  const options = useMemo(() => (card && revealed ? controller.options(card.id, now()) : []), [card, revealed, controller, now]);

  const resetScroll = scroll.reset;
  /** A card shown afresh: question side, its own text only, top of the card, nothing typed. */
  const showFresh = useCallback((at: number) => {
    setShownAt(at);
    setRevealed(false);
    setFull(false);
    resetScroll();
    setTyped('');
    setCalcRetry(null);
    setVerdict(null);
  }, [resetScroll]);

  /** What the run shows next, afresh, with the action's line and any the run adds (a new study day). */
  const show = useCallback(
    (next: ScreenNext, message: string | null, at: number) => {
      setCurrent(next);
      showFresh(at);
      setMessage(statusLine(message, next.notice));
    },
    [showFresh],
  );

  const advance = useCallback(
    (result: ActionResult | null) => {
      const at = now();
      show(controller.next(at), result?.message ?? null, at);
    },
    [controller, now, show],
  );

  // The scan kb review leaves until its first card is drawn: when it changed cards, take the
  // card again (the same card keeps its revealed side; another starts afresh).
  const shownCardId = useRef<string | null>(null);
  shownCardId.current = card?.id ?? null;
  useEffect(() => {
    let live = true;
    controller.catchUp?.().then((result) => {
      if (!live) return;
      if (result.changed) {
        const next = controller.next(now());
        if (next.kind !== 'card' || next.card.id !== shownCardId.current) showFresh(now());
        setCurrent(next);
      }
      if (result.message) setMessage(result.message);
    }).catch(exitOnRejection(exit));
    return () => {
      live = false;
    };
  }, [controller, now, showFresh]);

  // The clock in the header, and a learning card coming due while the screen waits.
  useEffect(() => {
    const timer = setInterval(() => {
      const at = now();
      setClock(at);
      if (current.kind === 'wait' && at >= current.until) advance(null);
      else if (current.kind === 'done') {
        // A finished run left open into the next study day goes on with that day's cards.
        const next = controller.next(at);
        if (next.kind !== 'done') show(next, null, at);
        // Still done, with a line to say (kb.json now invalid, its settings kept).
        else if (next.notice) setMessage(next.notice);
      }
    }, TICK_MS);
    return () => clearInterval(timer);
  }, [current, advance, show, controller, now]);

  /**
   * Runs `then` on the card as its file now says. A file changed since kb read it (written by
   * another editor while this screen is open, or deleted) is read again first, the keys typed
   * meanwhile waiting: the same card then takes `then` as the file now has it; one skipped
   * (its file gone, broken, or without it) gives way to the next card, with the line that says
   * why. Asked when a card comes up and when its answer is shown (it showed the answer of the
   * last scan, and a deleted note could be rated).
   */
  const whenFresh = (cardId: string, then?: () => void) => {
    if (!controller.readAgain || !controller.fileChanged?.(cardId)) return then?.();
    // Counted, not a flag: the card after one skipped may be read again before this one's ends.
    setRereading((count) => count + 1);
    controller
      .readAgain(cardId)
      .then((result) => {
        const at = now();
        const next = controller.next(at);
        if (next.kind === 'card' && next.card.id === cardId) {
          setCurrent(next);
          if (result.message || next.notice) setMessage(statusLine(result.message, next.notice));
          then?.();
        } else show(next, result.message, at);
      })
      .catch(exitOnRejection(exit))
      .finally(() => setRereading((count) => count - 1));
  };
  // A card that comes up (any way: an answer, undo, the clock, the first scan) is checked. Two
  // checks of one card at once are harmless: readAgain waits for the scan before it, then finds
  // the file read. (whenFresh is remade at every render: only `current` is a reason to check.)
  useEffect(() => {
    if (current.kind === 'card') whenFresh(current.card.id);
  }, [current]);

  // Time in the editor or stopped by Ctrl-Z is not time spent recalling the card either.
  const notAnswering = (awayMs: number) => setShownAt((at) => at + awayMs);

  const edit = async (cardId: string) => {
    const editor = controller.editCommand(cardId);
    if ('refused' in editor) return setMessage(editor.refused);
    const { command, args } = editor;
    setBusy(true);
    const left = now();
    try {
      let exit: EditorExit | void = undefined;
      if (runEditor) exit = await runEditor(command, args);
      else
        await suspendTerminal(() => {
          exit = spawnSyncKeepingKb(command, args);
          // Still on the normal screen, where kb's exit line will be printed: a `^C` echoed there
          // (or an editor's last line without a newline) no longer runs into it.
          toFreshLine(process.stdout);
        });
      notAnswering(now() - left);
      // The editor's failure is said, as kb add --edit says it: the screen said "reloaded" when
      // $EDITOR named no command (nothing had run) or the editor failed, as if the edit were in.
      const failed = exit ? editorFailure(command, exit) : null;
      // Not started: nothing was edited, nothing to read again; the card stays as it is.
      if (exit?.error) return setMessage(`not edited: ${failed} ($VISUAL, else $EDITOR, else vi)`);
      // Ended otherwise: it may have written the file first (vim's :cq), so the card is read again.
      const result = await controller.reload(cardId);
      const next = controller.next(now());
      setCurrent(next);
      setMessage(statusLine(failed ? `${failed}; ${result.message ?? 'reloaded'}` : result.message, next.notice));
    } finally {
      setBusy(false);
    }
  };

  const checkCalc = (cardId: string, answer: string) => {
    const result = controller.checkCalc?.(cardId, answer, now());
    if (!result) return;
    if (result.kind === 'retry') return setCalcRetry(result.message);
    setCalcRetry(null);
    setVerdict(result);
    setRevealed(true);
    setMessage(null);
  };

  // A key: review-keys.ts says what it means here, and this screen does it (a rating goes to the controller).
  const onKey = (input: string, key: Key) => {
    const view = { busy, labOpen: lab.state !== null, helpOpen: help, helpScrolls: helpScroll.max > 0, hasCard: card !== null, calc: Boolean(card?.calc), note: card?.kind === 'note', revealed, typed, suggested: verdict?.suggested, pageRows: height - CHROME_ROWS - 1 };
    const { command, hideHelp } = reviewKey(view, input, key);
    if (hideHelp) setHelp(false);
    if (command === null && !hideHelp) return;
    // The status line speaks of the last key: a key that does something takes it (its own
    // message, or none), so "unsuspended" does not stay through f, ? and the next card.
    if (command?.kind !== 'lab-key') setMessage(null);
    if (command === null) return;
    if (command.kind === 'lab-key') return lab.key(input, key);
    if (command.kind === 'quit') return exit(command.interrupted ? INTERRUPTED : undefined); // Ctrl-C: kb exits 130 (render-review.tsx)
    if (command.kind === 'toggle-help') {
      helpScroll.reset();
      return setHelp((shown) => !shown);
    }
    if (command.kind === 'scroll-help') return helpScroll.by(command.by);
    if (command.kind === 'to-shell') {
      return void stopUntilResumed(suspendTerminal, now).then(({ stopped, awayMs }) => {
        notAnswering(awayMs);
        setMessage(stopped ? null : NO_JOB_CONTROL);
      }, exitOnRejection(exit));
    }
    if (command.kind === 'undo') return advance(controller.undo(now()));
    if (!card) return;
    const at = now();
    switch (command.kind) {
      case 'type':
        setCalcRetry(null);
        return setTyped(command.typed);
      case 'check':
        return whenFresh(card.id, () => checkCalc(card.id, command.typed));
      case 'scroll':
        return scroll.by(command.by);
      case 'toggle-full':
        return whenFresh(card.id, () => {
          setRevealed(true);
          setFull((shown) => !shown);
          scroll.reset();
        });
      case 'bury':
        return advance(controller.bury(card.id, at));
      case 'suspend':
        return advance(controller.suspend(card.id, at));
      case 'edit':
        return void edit(card.id).catch(exitOnRejection(exit));
      case 'open-lab':
        return setMessage(lab.open(card.lab));
      case 'reveal':
        return whenFresh(card.id, () => setRevealed(true));
      case 'hint':
        return setMessage(command.message);
      case 'rate':
        return advance(controller.rate(card.id, command.grade, at, at - shownAt));
    }
  };
  // The keys typed ahead, one after each render (screen-input.ts); what a key's work throws closes the screen.
  const nextKey = useKeyQueue({ paused: busy || rereading > 0 });
  useEffect(() => {
    const typed = nextKey();
    if (typed === null) return;
    try {
      onKey(...typed);
    } catch (error) {
      exit(asError(error));
    }
  });

  const answerLine = useMemo(
    () => (card?.calc ? <CalcAnswerLine typed={typed} unit={card.calc.unit} verdict={verdict} revealed={revealed} retry={calcRetry} width={width} /> : null),
    [card, typed, verdict, revealed, calcRetry, width],
  );
  // At each render (a key, a card, the clock's tick): another terminal's kb review rating or
  // undoing one of this session's cards shows in these counts within a second.
  const counts = controller.counts(now());
  // On a narrow terminal the status line wraps: the card gives up the rows it takes, so the
  // screen stays within the terminal's height.
  const statusLines = message ? wrapText(message, width) : [' '];
  const bodyHeight = Math.max(2, height - CHROME_ROWS - (statusLines.length - 1));
  return (
    <Box flexDirection="column" width={width}>
      <Header counts={counts} elapsedMs={clock - startedAt} width={width} />
      <Text color="yellow">{statusLines.join('\n')}</Text>
      {help ? (
        // The answer bar's row too: it is hidden under the key list. Keyed, as the card's: one
        // Viewport reused for both told the help's limit only where it differed from the card's.
        <Viewport key="help" height={bodyHeight + 1} scroll={helpScroll.offset} onMaxScroll={helpScroll.onMaxScroll}>
          <HelpPanel editable={controller.editable !== false} width={width} scrolls={helpScroll.max > 0} />
        </Viewport>
      ) : lab.state ? (
        // The answer bar's row too: the panel has its own key hint.
        <CardLabPanel control={lab} height={bodyHeight + 1} width={width} />
      ) : card ? (
        <Viewport key="card" height={bodyHeight} scroll={scroll.offset} onMaxScroll={scroll.onMaxScroll}>
          <CardView card={card} revealed={revealed} full={full} width={width} labLine={labLine} answerLine={answerLine} />
        </Viewport>
      ) : (
        <SummaryView summary={controller.summary(clock)} waitingUntil={current.kind === 'wait' ? current.until : null} width={width} />
      )}
      {card && !help && !lab.state ? <AnswerBar revealed={revealed} options={options} width={width} lab={card.lab !== null} calc={Boolean(card.calc)} editable={controller.editable !== false} note={card.kind === 'note'} suggested={verdict?.suggested} typing={typed !== ''} unit={card.calc?.unit ?? null} /> : null}
    </Box>
  );
}

/** The status bar's line: an action's own message and a line the run adds, both when both came. */
function statusLine(message: string | null, notice: string | undefined): string | null {
  if (!notice) return message;
  return message ? `${message}; ${notice}` : notice;
}

/**
 * Runs the editor, kb waiting. A Ctrl-C there reaches kb's whole process group, kb as well as
 * the editor: without a listener Node died of it at once, and the session ended with no
 * summary (found as a user, a script as $EDITOR). Listening keeps kb alive while the editor
 * runs: the editor decides what Ctrl-C means (vi ignores it), and when it dies of it the
 * status line says so (editorFailure), as kb add --edit does.
 */
function spawnSyncKeepingKb(command: string, args: string[]): EditorExit {
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    return spawnSync(command, args, { stdio: 'inherit' });
  } finally {
    // Node hands kb the signal only once the event loop turns again, after spawnSync returned:
    // taken off at once, the listener was gone by then, and Ink's exit handler (signal-exit),
    // finding itself alone, ended kb all the same. It stays a moment longer.
    setTimeout(() => process.off('SIGINT', ignore), SIGNAL_GRACE_MS).unref();
  }
}

/** How long after the editor ends a Ctrl-C pressed in it may still reach kb's listeners. */
const SIGNAL_GRACE_MS = 500;
