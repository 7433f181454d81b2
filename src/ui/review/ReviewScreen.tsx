// kb review's screen. State lives here; the controller does the work and the components
// below only draw. Keys follow Anki: Space/Enter shows the answer (and then means Good),
// 1-4 answer, u undo, b bury, s suspend, e edit, f the whole note, ? help, q quit.
import { Box, Text, useApp, useInput, useWindowSize } from 'ink';
import { spawnSync } from 'node:child_process';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { AnswerBar } from './AnswerBar.tsx';
import { CardView } from './CardView.tsx';
import type { ActionResult, ReviewController, ScreenNext } from '../../srs/review-controller.ts';
import { Header } from './Header.tsx';
import { HelpPanel } from './HelpPanel.tsx';
import { SummaryView } from './SummaryView.tsx';
import { Viewport } from './Viewport.tsx';

export interface ReviewScreenProps {
  controller: ReviewController;
  startedAt: number;
  /** The time source (tests pass a fixed clock). */
  now?: () => number;
  /** Runs the editor with the terminal handed over; the real screen uses Ink's suspendTerminal. */
  runEditor?: (command: string, args: string[]) => Promise<void>;
}

const TICK_MS = 1000;
/** Rows taken by the header, the status line and the answer bar. */
const CHROME_ROWS = 4;

export function ReviewScreen({ controller, startedAt, now = Date.now, runEditor }: ReviewScreenProps) {
  const { exit, suspendTerminal } = useApp();
  const { columns, rows } = useWindowSize();
  const width = Math.max(20, (columns || 80) - 1);
  const height = Math.max(6, rows || 24);

  const [current, setCurrent] = useState<ScreenNext>(() => controller.next(now()));
  const [shownAt, setShownAt] = useState(now);
  const [revealed, setRevealed] = useState(false);
  const [full, setFull] = useState(false);
  const [help, setHelp] = useState(false);
  const [scroll, setScroll] = useState(0);
  const [maxScroll, setMaxScroll] = useState(0);
  const [message, setMessage] = useState<string | null>(null);
  const [clock, setClock] = useState(now);
  const [busy, setBusy] = useState(false);

  const card = current.kind === 'card' ? current.card : null;
  const options = useMemo(() => (card && revealed ? controller.options(card.id, now()) : []), [card, revealed, controller, now]);

  const advance = useCallback(
    (result: ActionResult | null) => {
      const at = now();
      setCurrent(controller.next(at));
      setShownAt(at);
      setRevealed(false);
      setFull(false);
      setScroll(0);
      setMessage(result?.message ?? null);
    },
    [controller, now],
  );

  // The clock in the header, and a learning card coming due while the screen waits.
  useEffect(() => {
    const timer = setInterval(() => {
      const at = now();
      setClock(at);
      if (current.kind === 'wait' && at >= current.until) advance(null);
    }, TICK_MS);
    return () => clearInterval(timer);
  }, [current, advance, now]);

  const edit = async (cardId: string) => {
    const editor = controller.editCommand(cardId);
    if ('refused' in editor) return setMessage(editor.refused);
    const { command, args } = editor;
    setBusy(true);
    try {
      if (runEditor) await runEditor(command, args);
      else await suspendTerminal(() => void spawnSync(command, args, { stdio: 'inherit' }));
      const result = await controller.reload(cardId);
      setCurrent(controller.next(now()));
      setMessage(result.message);
    } finally {
      setBusy(false);
    }
  };

  useInput((input, key) => {
    if (busy) return;
    if (input === 'q' || key.escape) {
      exit();
      return;
    }
    if (input === '?') {
      setHelp((shown) => !shown);
      return;
    }
    setHelp(false);
    if (input === 'u') {
      advance(controller.undo(now()));
      return;
    }
    if (!card) return;
    if (input === 'j' || key.downArrow) return setScroll((s) => Math.min(maxScroll, s + 1));
    if (input === 'k' || key.upArrow) return setScroll((s) => Math.max(0, s - 1));
    if (key.pageDown) return setScroll((s) => Math.min(maxScroll, s + height - CHROME_ROWS - 1));
    if (key.pageUp) return setScroll((s) => Math.max(0, s - (height - CHROME_ROWS - 1)));
    if (input === 'f') {
      setRevealed(true);
      setFull((shown) => !shown);
      setScroll(0);
      return;
    }
    if (input === 'b') return advance(controller.bury(card.id, now()));
    if (input === 's') return advance(controller.suspend(card.id, now()));
    if (input === 'e') return void edit(card.id);
    const at = now();
    if (!revealed) {
      if (input === ' ' || key.return) setRevealed(true);
      else if (/^[1-4]$/.test(input)) setMessage('Space shows the answer first');
      return;
    }
    const grade = input === ' ' || key.return ? 3 : /^[1-4]$/.test(input) ? (Number(input) as 1 | 2 | 3 | 4) : null;
    if (grade !== null) advance(controller.rate(card.id, grade, at, at - shownAt));
  });

  const counts = controller.counts();
  const bodyHeight = height - CHROME_ROWS;
  return (
    <Box flexDirection="column" width={width}>
      <Header counts={counts} elapsedMs={clock - startedAt} width={width} />
      <Text color="yellow">{message ?? ' '}</Text>
      {help ? (
        <HelpPanel />
      ) : card ? (
        <Viewport height={bodyHeight} scroll={scroll} onMaxScroll={setMaxScroll}>
          <CardView card={card} revealed={revealed} full={full} width={width} />
        </Viewport>
      ) : (
        <SummaryView summary={controller.summary(clock)} waitingUntil={current.kind === 'wait' ? current.until : null} />
      )}
      {card && !help ? <AnswerBar revealed={revealed} options={options} width={width} /> : null}
    </Box>
  );
}
