// kb quiz --json: the quiz for scripts, as JSON Lines. kb writes one object per line and
// reads one answer per line from stdin:
//   {"type":"session", ...}                      once, first ("shortfall": why fewer than -n)
//   {"type":"question", "n":1, ...}              then waits for a line:
//       a calc card: the number, a unit optional ("20", "20 ms", "0.02s")
//       a text card: y / yes / right / 3, or n / no / wrong / 1 (the learner's own verdict)
//   {"type":"retry", "n":1, "message":...}       the line could not be read; send another
//   {"type":"answer", "n":1, "correct":true, ...}
//   {"type":"summary", ..., "interrupted":false} last, also when stdin ends early; after a
//                                                Ctrl-C (SIGINT) or SIGTERM with "interrupted":
//                                                true, and kb exits 130
// A question whose answer arrives after --time counts as wrong.
import { createInterface } from 'node:readline';
import type { QuizRun } from '../app/quiz/quiz-run.ts';
import { expectedLabel, solutionText, type QuizAnswer, type QuizQuestion } from '../app/quiz/quiz-session.ts';

// 3 and 1 as well: the quiz screen grades a text card with y or 3, n or 1 (Good and Again, as
// in kb review), so a script written from the screen's keys is not asked again.
const YES = new Set(['y', 'yes', 'right', 'correct', 'true', '3']);
const NO = new Set(['n', 'no', 'wrong', 'false', '1']);

export interface JsonQuizIo {
  lines: AsyncIterator<string>;
  write: (event: Record<string, unknown>) => void;
  now: () => number;
  /** Settles when the quiz is to stop where it is (a signal): the summary is written, marked interrupted. */
  interrupted?: Promise<void>;
}

/**
 * stdin and stdout as the quiz's lines. A Ctrl-C (SIGINT) or SIGTERM while a question waits
 * for its line ends the quiz with the summary of the answers given, as the terminal quiz does:
 * it killed kb at once and the script got no summary line. close() gives the signals back
 * (a second Ctrl-C then kills) and lets go of stdin, so kb exits without waiting for its end.
 */
export function stdioJsonQuiz(): JsonQuizIo & { close: () => void } {
  const reader = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let onSignal = () => {};
  const interrupted = new Promise<void>((resolve) => (onSignal = resolve));
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const stopListening = () => signals.forEach((signal) => process.off(signal, onSignal));
  signals.forEach((signal) => process.on(signal, onSignal));
  return {
    lines: reader[Symbol.asyncIterator](),
    write: (event) => void process.stdout.write(`${JSON.stringify(event)}\n`),
    now: Date.now,
    interrupted,
    close: () => {
      stopListening();
      reader.close();
      process.stdin.destroy();
    },
  };
}

function questionEvent(question: QuizQuestion, total: number): Record<string, unknown> {
  const { card } = question;
  return {
    type: 'question',
    n: question.index + 1,
    of: total,
    cardId: card.id,
    kind: card.calc ? 'calc' : 'text',
    path: card.path,
    line: card.line,
    deck: card.deck,
    tags: card.tags,
    question: question.prompt,
    // As the question prints them: a drawn 0.5 + 1.325 is 1.825, not 1.8250000000000002.
    values: question.values === null ? null : Object.fromEntries(Object.entries(question.values).map(([name, value]) => [name, printed(value)])),
    unit: card.calc?.unit ?? null,
    tolerance: card.calc ? card.calc.tolerance : null,
  };
}

/** A computed number to 12 significant digits: what the arithmetic meant, without its rounding noise. */
function printed(value: number): number {
  return Number(value.toPrecision(12));
}

function answerEvent(question: QuizQuestion, answer: QuizAnswer, scheduled: string | null | undefined): Record<string, unknown> {
  return {
    type: 'answer',
    n: answer.index + 1,
    cardId: answer.cardId,
    answered: answer.typed,
    value: answer.value === null ? null : printed(answer.value),
    // The formula's floating-point noise left out, as for values: 6553.6, not 6553.5999999999985.
    expected: answer.expected === null ? null : printed(answer.expected),
    expectedLabel: expectedLabel(question),
    correct: answer.correct,
    timedOut: answer.timedOut,
    durationMs: answer.durationMs,
    solution: solutionText(question),
    scheduled: scheduled ?? null,
  };
}

/**
 * Runs the whole session over `io`; returns when every question is answered, input ends or
 * `io.interrupted` settles (then with interrupted: true).
 */
export async function runJsonQuiz(run: QuizRun, io: JsonQuizIo): Promise<{ interrupted: boolean }> {
  const total = run.session.questions.length;
  io.write({ type: 'session', session: run.session.id, seed: run.session.seed, questions: total, timeLimitMs: run.session.timeLimitMs, shortfall: run.shortfall });
  // Each answer is stored as it is read (synchronously), so stopping between lines loses none.
  const stop = (io.interrupted ?? new Promise<never>(() => {})).then(() => 'interrupted' as const);
  let ended = false;
  let interrupted = false;
  for (let question = run.current(); question && !ended; question = run.current()) {
    io.write(questionEvent(question, total));
    const askedAt = io.now();
    for (;;) {
      const line = await Promise.race([io.lines.next(), stop]);
      if (line === 'interrupted') interrupted = true;
      if (line === 'interrupted' || line.done) {
        ended = true;
        break;
      }
      const timing = { askedAt, answeredAt: io.now() };
      const text = line.value.trim();
      if (question.card.calc) {
        const attempt = run.answerCalc(text, timing);
        if (attempt.kind === 'retry') {
          io.write({ type: 'retry', n: question.index + 1, message: attempt.message });
          continue;
        }
        io.write(answerEvent(question, attempt.answer, attempt.scheduled));
        break;
      }
      const verdict = YES.has(text.toLowerCase()) ? true : NO.has(text.toLowerCase()) ? false : null;
      if (verdict === null) {
        io.write({ type: 'retry', n: question.index + 1, message: 'a text card takes y or 3 (I knew it), n or 1 (I did not)' });
        continue;
      }
      const graded = run.gradeText(verdict, timing);
      // What was typed, for a text card too (its y or n; it was null).
      io.write(answerEvent(question, { ...graded.answer, typed: graded.answer.typed ?? text }, graded.scheduled));
      break;
    }
  }
  const summary = run.summary(io.now());
  io.write({ type: 'summary', session: run.session.id, ...summary, interrupted });
  return { interrupted };
}
