// kb quiz's screen. A calc card takes a typed number (Enter checks it; a unit that does not
// fit is a message, not a wrong answer) and then shows the worked solution with the values
// in; a text card is revealed with Space and graded by the learner (y right, n wrong). With
// a time limit a countdown runs; at zero the question counts as wrong. Esc or q ends early.
// l runs the card's lab in place (not while a number is being typed); the countdown and the
// answer time stand still while the lab panel is open.
import { Box, Text, useApp, useWindowSize, type Key } from 'ink';
import stringWidth from 'string-width';
import { useEffect, useReducer, useRef, useState } from 'react';
import { asError, exitOnError, exitOnRejection, INTERRUPTED, useKeyQueue } from '../screen-input.ts';
import { NO_JOB_CONTROL, stopUntilResumed } from '../job-control.ts';
import type { CardLabs } from '../../app/card-labs/card-labs.ts';
import type { CalcAttempt, QuizAnswer, QuizQuestion, QuizSession, QuizSummary, Timing } from '../../app/quiz/quiz-session.ts';
import { calcVerdict, expectedLabel, solutionText } from '../../app/quiz/quiz-session.ts';
import { CardLabPanel, useCardLab } from '../card-lab-panel.tsx';
import { LabLine } from '../lab-line.tsx';
import { WrappedSpans } from '../text/WrappedSpans.tsx';
import { Markdown } from '../markdown/Markdown.tsx';
import { QuizEnd } from './QuizEnd.tsx';
import { QuizInput } from './AnswerInput.tsx';
import { quizKey, type QuizPhase } from './quiz-keys.ts';
import { secondsLeft } from './quiz-text.ts';
import { quizSourceLine } from './source-line.ts';
import { readableWidth } from '../review/card-layout.ts';
import { preloadLineBreaker } from '../text/line-break.ts';
import { clampScroll, Viewport } from '../review/Viewport.tsx';
import { TopLine } from '../top-line.tsx';
import { wrapText } from '../text/line-wrap.ts';

/** What the screen drives: QuizRun (src/app/quiz/quiz-run.ts) in kb, a fake in tests. */
export interface QuizDriver {
  readonly session: QuizSession;
  current(): QuizQuestion | null;
  answerCalc(typed: string, timing: Timing): CalcAttempt & { scheduled?: string | null };
  gradeText(correct: boolean, timing: Timing): { answer: QuizAnswer; scheduled: string | null };
  timeOut(timing: Timing): { answer: QuizAnswer; scheduled: string | null };
  summary(now: number): QuizSummary;
  /** Runs a card's lab in place and reads its latest stored result; without it, l says labs cannot run. */
  readonly labs?: CardLabs;
}

interface View {
  phase: QuizPhase;
  question: QuizQuestion | null;
  /** When the current question appeared (its countdown starts there). */
  shownAt: number;
  /** When a text card's answer was shown: the recall time ends there. */
  revealedAt: number | null;
  typed: string;
  message: string | null;
  /**
   * Why a typed answer was not taken ('"TB/s" does not convert to tokens'), shown under the
   * answer line: in the message row at the bottom it was far from where the learner types.
   */
  retry: string | null;
  outcome: Outcome | null;
  endedAt: number | null;
  /** Lines scrolled down in a question or solution taller than the screen. */
  scroll: number;
}

/** Every key of the quiz, for ? (the bottom row shows those of the moment). */
const QUIZ_KEYS = 'keys: Space shows a text answer, then y/n · a number, Enter checks it · Enter next · j k PgUp PgDn scroll · l lab · q, Esc end the quiz · Ctrl-Z shell';

/** Rows taken by the header, the card line, the message and the key hints. */
const CHROME_ROWS = 4;

interface Outcome {
  question: QuizQuestion;
  answer: QuizAnswer;
  scheduled: string | null;
}

export interface QuizScreenProps {
  driver: QuizDriver;
  /** The time source (tests pass a fixed clock). */
  now?: () => number;
  /** How often the countdown is redrawn and checked. */
  tickMs?: number;
  /** Told when the end screen appears (so the time printed afterwards stops there). */
  onFinish?: (endedAt: number) => void;
  /** A line shown in the message row until the first answer's own message replaces it. */
  notice?: string;
}

/** A question line as a heading, unless it is already a block of its own. */
function questionSource(prompt: string): string {
  return prompt.includes('\n') || /^\s*#/.test(prompt) ? prompt : `# ${prompt}`;
}

export function QuizScreen({ driver, now = Date.now, tickMs = 250, onFinish, notice }: QuizScreenProps) {
  const { exit, suspendTerminal } = useApp();
  const { columns, rows } = useWindowSize();
  const width = Math.max(20, (columns || 80) - 1);
  const measure = readableWidth(width);
  const bodyHeight = Math.max(4, (rows || 24) - CHROME_ROWS);
  const total = driver.session.questions.length;
  const limit = driver.session.timeLimitMs;

  // The screen's state lives in a ref as well as on screen: a terminal can deliver several
  // keys before React renders again (a paste, fast typing), and each must see the last one's
  // effect, not the state of the previous render.
  const view = useRef<View>({
    phase: driver.current() ? 'ask' : 'end',
    question: driver.current(),
    shownAt: now(),
    revealedAt: null,
    typed: '',
    message: notice ?? null,
    retry: null,
    outcome: null,
    endedAt: null,
    scroll: 0,
  });
  // A ref, read when a scroll key is applied: the Viewport tells a new limit in its effect, and
  // a key typed ahead in the same render would clamp to the limit that render had seen (a held
  // PgDn went past the end over blank rows on the review screen; use-scroll.ts there).
  const maxScroll = useRef(0);
  // A larger terminal (or a shorter view) lowers the limit: the offset comes down with it, or
  // the screen showed the last few lines over blank rows.
  // Set when a typed answer was refused: the answer line and the reason under it are the
  // question's last rows, so on a short screen the view goes down to them (the reason was
  // drawn below the visible rows). The reason's rows change the limit, which brings us here.
  const showEnd = useRef(false);
  const onMaxScroll = (max: number) => {
    maxScroll.current = max;
    if (showEnd.current) update({ scroll: max });
    else if (view.current.scroll > max) update({ scroll: max });
    showEnd.current = false;
  };
  useEffect(() => preloadLineBreaker(), []);
  const [, redraw] = useReducer((count: number) => count + 1, 0);
  const [clock, setClock] = useState(now);
  const update = (patch: Partial<View>) => {
    view.current = { ...view.current, ...patch };
    redraw();
  };
  // Time in the lab panel or stopped by Ctrl-Z moves the question's start (and reveal) later:
  // it is neither answer time nor countdown.
  const pause = (pausedMs: number) => {
    const { shownAt, revealedAt } = view.current;
    update({ shownAt: shownAt + pausedMs, revealedAt: revealedAt === null ? null : revealedAt + pausedMs });
    setClock(now());
  };
  const lab = useCardLab(driver.labs, now, pause, Math.max(1, bodyHeight - 2));
  /** Ctrl-Z stopped kb: the countdown does not tick until the time away is accounted for. */
  const stopped = useRef(false);

  const finish = () => {
    const at = now();
    update({ phase: 'end', endedAt: at });
    onFinish?.(at);
  };

  const settle = (answered: { answer: QuizAnswer; scheduled?: string | null }) => {
    const { question } = view.current;
    if (!question) return;
    update({ phase: 'result', message: null, retry: null, scroll: 0, outcome: { question, answer: answered.answer, scheduled: answered.scheduled ?? null } });
  };

  const next = () => {
    const upcoming = driver.current();
    update({ outcome: null, typed: '', message: null, retry: null, revealedAt: null, scroll: 0 });
    if (!upcoming) return finish();
    update({ question: upcoming, shownAt: now(), phase: 'ask' });
  };

  // The countdown: only while the question waits for an answer.
  const counting = limit !== null && view.current.phase === 'ask' && lab.state === null;
  useEffect(() => {
    if (!counting || limit === null) return;
    const timer = setInterval(exitOnError(exit, () => {
      if (stopped.current) return;
      const at = now();
      setClock(at);
      const { phase, question, shownAt } = view.current;
      // The guard keeps a late tick from timing out a question already answered.
      if (phase === 'ask' && at - shownAt >= limit && driver.current()?.index === question?.index) {
        settle(driver.timeOut({ askedAt: shownAt, answeredAt: at }));
      }
    }), tickMs);
    return () => clearInterval(timer);
  }, [counting, limit, tickMs, driver, now]);

  // A key: quiz-keys.ts says what it means here, and this screen does it.
  const onKey = (input: string, key: Key) => {
    const { phase, question, shownAt, revealedAt } = view.current;
    const command = quizKey(
      { phase, labOpen: lab.state !== null, hasQuestion: question !== null, calc: Boolean(question?.card.calc), typed: view.current.typed, pageRows: bodyHeight - 1, keysShown: view.current.message === QUIZ_KEYS },
      input,
      key,
    );
    if (command === null) return;
    // The message speaks of the last key: editing the answer or scrolling takes it away
    // ('"GB" does not convert to ms' stayed above an answer Esc had cleared).
    if (command.kind === 'type' || command.kind === 'scroll') update({ message: null, retry: null });
    if (command.kind === 'close') return exit();
    if (command.kind === 'lab-key') return lab.key(input, key);
    if (command.kind === 'interrupt') return exit(INTERRUPTED);
    if (command.kind === 'to-shell') {
      stopped.current = true;
      return void stopUntilResumed(suspendTerminal, now).then(({ stopped: resumed, awayMs }) => {
        stopped.current = false;
        pause(awayMs);
        update({ message: resumed ? null : NO_JOB_CONTROL });
      }, exitOnRejection(exit));
    }
    if (command.kind === 'finish') return finish();
    if (!question) return;
    const at = now();
    switch (command.kind) {
      case 'keys':
        return update({ message: QUIZ_KEYS });
      case 'hide-keys':
        return update({ message: null });
      case 'open-lab':
        return update({ message: lab.open(question.card.lab) });
      case 'scroll':
        return update({ scroll: clampScroll(view.current.scroll + command.by, maxScroll.current) });
      case 'next':
        return next();
      case 'grade':
        // The time it took to recall is up to the reveal; a text card goes straight on. The
        // learner graded it, so there is no verdict to show, and one left on screen would read
        // as the next question's (the header's tally counts it).
        driver.gradeText(command.correct, { askedAt: shownAt, answeredAt: revealedAt ?? at });
        return next();
      case 'reveal':
        return update({ revealedAt: at, phase: 'reveal', scroll: 0 });
      case 'type': {
        update({ typed: command.typed });
        if (!command.submit) return;
        const attempt = driver.answerCalc(command.typed, { askedAt: shownAt, answeredAt: at });
        if (attempt.kind === 'retry') {
          showEnd.current = true;
          update({ retry: attempt.message });
        }
        else settle(attempt);
      }
    }
  };
  // The keys typed ahead, one after each render (screen-input.ts). An answer is stored as it is
  // given: a fault of the machine closes the screen with its one line.
  const nextKey = useKeyQueue();
  useEffect(() => {
    const typed = nextKey();
    if (typed === null) return;
    try {
      onKey(...typed);
    } catch (error) {
      exit(asError(error));
    }
  });

  const { phase, question, shownAt, typed, message, retry, outcome, endedAt, scroll } = view.current;
  if (phase === 'end') {
    return (
      <Box flexDirection="column" width={width}>
        <QuizEnd summary={driver.summary(endedAt ?? now())} total={total} width={width} />
      </Box>
    );
  }
  if (!question) return null;

  const answered = driver.session.answers.length;
  const right = driver.session.answers.filter((answer) => answer.correct).length;
  const calc = question.card.calc;
  const labLine = question.card.lab && driver.labs && phase !== 'ask' && !lab.state ? driver.labs.latest(question.card.lab, now()) : null;
  // The clock may still hold the previous question's last tick.
  const left = limit === null ? null : secondsLeft(limit - Math.max(0, clock - shownAt));
  const countdown = left !== null && phase === 'ask' ? `${left}s left` : '';
  const progress = `question ${question.index + 1}/${total}  right ${right}/${answered}`;
  // One line at any width (a phone's 40 columns wrapped it and pushed it off the screen): the title goes first, then the counts are cut.
  const titled = 'kb quiz  '.length + progress.length + 2 + countdown.length <= width;
  // A message wider than the terminal wraps (cut at its edge, '"GB" does not convert to ms: answer
  // in ms (a time)' lost what to do): the question gives up the rows it takes, the key hints stay.
  const messageLines = message ? wrapText(message, width) : [' '];
  return (
    <Box flexDirection="column" width={width}>
      <TopLine
        width={width}
        left={
          <>
            {titled ? <Text bold>{'kb quiz  '}</Text> : null}
            <Text dimColor>{'question '}</Text>
            <Text>{`${question.index + 1}/${total}`}</Text>
            <Text dimColor>{'  right '}</Text>
            <Text color="green">{`${right}/${answered}`}</Text>
          </>
        }
        right={<Text color={left !== null && left <= 10 ? 'red' : undefined}>{countdown || ' '}</Text>}
      />
      {/* Fitted by kb: the tags give way before the path, whose line number stays (cut at the end, "metrics.md:4…" read as line 4). */}
      <Text dimColor wrap="truncate-end">{quizSourceLine(question.card.deck, question.card.tags, `${question.card.path}:${question.card.line}`, width)}</Text>
      {lab.state ? (
        // The message and key hint rows too: the panel has its own hint.
        <CardLabPanel control={lab} height={bodyHeight + 2} width={width} />
      ) : (
        <>
          <Viewport height={Math.max(2, bodyHeight - (messageLines.length - 1))} scroll={scroll} onMaxScroll={onMaxScroll}>
            <Box marginTop={1}>
              <Markdown source={questionSource(question.prompt)} width={measure} />
            </Box>
            <Box marginTop={1} flexDirection="column">
              {phase === 'ask' && calc ? <QuizInput value={typed} unit={calc.unit} /> : null}
              {phase === 'ask' && retry ? <Text color="yellow">{wrapText(retry, width).join('\n')}</Text> : null}
              {phase === 'reveal' ? <Solution question={question} width={width} labLine={labLine} /> : null}
              {phase === 'result' && outcome ? <Verdict outcome={outcome} width={width} labLine={labLine} /> : null}
            </Box>
          </Viewport>
          <Text color="yellow">{messageLines.join('\n')}</Text>
          <KeyHints phase={phase} calc={calc !== null} unit={calc?.unit ?? null} typing={typed !== ''} lab={question.card.lab !== null} width={width} />
        </>
      )}
    </Box>
  );
}

function Solution({ question, width, labLine }: { question: QuizQuestion; width: number; labLine: string | null }) {
  const text = solutionText(question).trim();
  const measure = readableWidth(width);
  return (
    <Box flexDirection="column">
      <Text color="gray">{'─'.repeat(Math.max(1, measure))}</Text>
      {text ? <Markdown source={text} width={measure} /> : <Text dimColor>(this card has no answer text)</Text>}
      <LabLine line={labLine} width={width} />
    </Box>
  );
}

function Verdict({ outcome, width, labLine }: { outcome: Outcome; width: number; labLine: string | null }) {
  const { answer, question, scheduled } = outcome;
  const expected = expectedLabel(question);
  let line: string;
  if (answer.timedOut && answer.typed === null) line = `✗ Time's up${expected ? `: the answer is ${expected}` : ''}`;
  else if (answer.timedOut) line = `✗ Too late (${answer.typed})${expected ? `: the answer is ${expected}` : ''}`;
  else if (question.card.calc) line = calcVerdict(question, answer.typed ?? '', answer.value, answer.correct);
  else line = answer.correct ? '✓ Right' : '✗ Wrong';
  return (
    <Box flexDirection="column">
      <WrappedSpans
        spans={[{ text: line, style: {} }, ...(scheduled ? [{ text: `  (scheduled: ${scheduled})`, style: { dimColor: true } }] : [])]}
        width={width}
        style={{ bold: true, color: answer.correct ? 'green' : 'red' }}
      />
      <Solution question={question} width={width} labLine={labLine} />
    </Box>
  );
}

function KeyHints({ phase, calc, unit, typing, lab, width }: { phase: QuizPhase; calc: boolean; unit: string | null; typing: boolean; lab: boolean; width: number }) {
  const l = lab ? ' · l run lab' : '';
  // The card's own unit: examples in ms and GB read as a suggestion to type them on a card in tokens.
  const prompt = unit ? `type a number (${unit} if no unit is given)` : 'type a number';
  // Esc clears a half-typed answer; only an empty one quits.
  const esc = typing ? 'Esc clear' : 'Esc quit';
  const hints: Record<Exclude<QuizPhase, 'end'>, string> = {
    ask: calc ? `${prompt} · Enter check · ${esc}` : `Space show the answer${l} · q quit`,
    reveal: `y I knew it · n I did not${l} · q quit`,
    result: `Enter next${l} · q quit`,
  };
  const hint = hints[phase as Exclude<QuizPhase, 'end'>];
  // A calc question's hint without its examples where it does not fit: cut at the end, it lost its keys.
  const shown = phase === 'ask' && calc && stringWidth(hint) > width ? `type a number · Enter check · ${esc}` : hint;
  return <Text dimColor wrap="truncate-end">{shown}</Text>;
}
