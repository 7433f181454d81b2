// A quiz session as plain data: the questions drawn (a calc card with its fresh values and
// the expected number), the answers given, and the score. Every step returns a new session;
// the TUI and the --json mode drive the same functions, and the run stores each answer.
import { figureNotes } from '../../kb/calc-figure-notes.ts';
import type { CalcSpec } from '../../model/knowledge-base.ts';
import { calcAnswer, checkCalcAnswer, drawCalc, formatNumber, renderTemplate } from '../../kb/calc.ts';
import type { CardRow } from '../../store/card-rows.ts';
import { parseTypedAnswer } from './quiz-units.ts';

export type QuizCard = Pick<CardRow, 'id' | 'kind' | 'path' | 'line' | 'deck' | 'front' | 'back' | 'tags' | 'lab' | 'calc'>;

export interface QuizQuestion {
  /** 0-based position in the session. */
  index: number;
  card: QuizCard;
  /** Drawn values of a calc card (every variable, formulas included); null for a text card. */
  values: Record<string, number> | null;
  /** The answer of a calc card for these values; null for a text card. */
  expected: number | null;
  /** The question with the values filled in (Markdown). */
  prompt: string;
}

export interface QuizAnswer {
  index: number;
  cardId: string;
  askedAt: number;
  durationMs: number;
  /** What was typed (calc cards); null for a self-graded text card or a timeout. */
  typed: string | null;
  /** The typed number converted into the card's unit. */
  value: number | null;
  expected: number | null;
  correct: boolean;
  timedOut: boolean;
}

export interface QuizSession {
  id: string;
  seed: number;
  startedAt: number;
  /** Time allowed per question; null when untimed. */
  timeLimitMs: number | null;
  questions: QuizQuestion[];
  answers: QuizAnswer[];
}

export interface QuizSessionOptions {
  id: string;
  seed: number;
  startedAt: number;
  timeLimitMs: number | null;
}

/** Draws that give NaN or Infinity are redrawn this many times before the card is left out. */
const MAX_REDRAWS = 20;

/** One question for `card` (a calc card with values from `rng`); null when no draw gives a finite answer. */
export function drawQuestion(card: QuizCard, index: number, rng: () => number): QuizQuestion | null {
  const spec = card.calc;
  if (spec === null) return { index, card, values: null, expected: null, prompt: card.front };
  for (let attempt = 0; attempt < MAX_REDRAWS; attempt++) {
    const values = drawCalc(spec, rng);
    const expected = calcAnswer(spec, values);
    if (Number.isFinite(expected)) return { index, card, values, expected, prompt: withSources(renderTemplate(card.front, values, spec), spec) };
  }
  return null;
}

/** A session over `cards` (already picked, in the order to ask), each calc card with fresh values. */
export function createQuizSession(cards: readonly QuizCard[], options: QuizSessionOptions, rng: () => number): QuizSession {
  const questions: QuizQuestion[] = [];
  for (const card of cards) {
    const question = drawQuestion(card, questions.length, rng);
    if (question) questions.push(question);
  }
  return { ...options, questions, answers: [] };
}

/** The question waiting for an answer, or null when the session is over. */
export function currentQuestion(session: QuizSession): QuizQuestion | null {
  return session.questions[session.answers.length] ?? null;
}

export function isFinished(session: QuizSession): boolean {
  return session.answers.length >= session.questions.length;
}

function overTime(session: QuizSession, askedAt: number, answeredAt: number): boolean {
  return session.timeLimitMs !== null && answeredAt - askedAt > session.timeLimitMs;
}

export interface Timing {
  askedAt: number;
  answeredAt: number;
}

export type CalcAttempt =
  | { kind: 'retry'; message: string }
  | { kind: 'answered'; session: QuizSession; answer: QuizAnswer };

/** What the learner gave for a question; the rest of the answer follows from the question and its timing. */
type Given = Pick<QuizAnswer, 'typed' | 'value' | 'correct' | 'timedOut'>;

/** Records the answer to `question` and returns the session with it. */
function answered(session: QuizSession, question: QuizQuestion, timing: Timing, given: Given): { session: QuizSession; answer: QuizAnswer } {
  const answer: QuizAnswer = {
    index: question.index,
    cardId: question.card.id,
    askedAt: timing.askedAt,
    durationMs: Math.max(0, timing.answeredAt - timing.askedAt),
    typed: given.typed,
    value: given.value,
    expected: question.expected,
    correct: given.correct,
    timedOut: given.timedOut,
  };
  return { session: { ...session, answers: [...session.answers, answer] }, answer };
}

function openQuestion(session: QuizSession): QuizQuestion {
  const question = currentQuestion(session);
  if (!question) throw new Error('the quiz is over');
  return question;
}

/**
 * A typed answer to the current calc card. A number it cannot read, or a unit that does not
 * fit the card, asks for another try; an answer after the time limit counts as wrong.
 */
export function answerCalc(session: QuizSession, typed: string, timing: Timing): CalcAttempt {
  const question = currentQuestion(session);
  if (!question || question.card.calc === null || question.values === null || question.expected === null) {
    throw new Error('the current question is not a calculation');
  }
  const parsed = parseTypedAnswer(typed, question.card.calc.unit);
  if (!parsed.ok) return { kind: 'retry', message: parsed.message };
  const timedOut = overTime(session, timing.askedAt, timing.answeredAt);
  const correct = !timedOut && checkCalcAnswer(question.card.calc, question.values, parsed.value);
  return { kind: 'answered', ...answered(session, question, timing, { typed, value: parsed.value, correct, timedOut }) };
}

/** The learner's own verdict on a text card (after the reveal). */
export function gradeText(session: QuizSession, correct: boolean, timing: Timing): { session: QuizSession; answer: QuizAnswer } {
  const question = openQuestion(session);
  const timedOut = overTime(session, timing.askedAt, timing.answeredAt);
  return answered(session, question, timing, { typed: null, value: null, correct: correct && !timedOut, timedOut });
}

/** The countdown ran out on the current question: it counts as wrong. */
export function timeOut(session: QuizSession, timing: Timing): { session: QuizSession; answer: QuizAnswer } {
  return answered(session, openQuestion(session), timing, { typed: null, value: null, correct: false, timedOut: true });
}

/** The expected answer as shown: `20 ms`. */
export function expectedLabel(question: QuizQuestion): string | null {
  if (question.expected === null) return null;
  const unit = question.card.calc?.unit;
  return unit ? `${formatNumber(question.expected)} ${unit}` : formatNumber(question.expected);
}

/**
 * How far a typed answer may be from the card's, as a wrong verdict says it after the answer:
 * " (±1%)", " (±0.5 ms)", ", exactly" (tolerance 0). Without it, 45 refused for 45.71 ms left
 * the learner guessing whether the sum or only the rounding was wrong.
 */
function toleranceNote(question: QuizQuestion): string {
  const spec = question.card.calc;
  if (!spec) return '';
  const { kind, value } = spec.tolerance;
  if (value === 0) return ', exactly';
  return ` (±${kind === 'rel' ? `${formatNumber(value * 100)}%` : `${formatNumber(value)}${spec.unit ? ` ${spec.unit}` : ''}`})`;
}

/**
 * The verdict on a typed calc answer, as kb quiz and kb review show it: "✓ Right: 20ms = 20 ms"
 * or "✗ Wrong: you typed 25 = 25 ms; the answer is 20 ms (±1%)". `value` is the typed number in
 * the card's unit (null when it could not be read), given to six significant digits; typed as
 * kb reads it, it is shown once ("you typed 12", "3000 tokens", not "12 = 12").
 */
export function calcVerdict(question: QuizQuestion, typed: string, value: number | null, correct: boolean): string {
  const unit = question.card.calc?.unit;
  const shown = value === null ? null : Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(6)));
  const read = shown === null ? null : `${shown}${unit ? ` ${unit}` : ''}`;
  const yours = read === null || read === typed.trim().replace(/\s+/g, ' ') ? typed : `${typed} = ${read}`;
  return correct ? `✓ Right: ${yours}` : `✗ Wrong: you typed ${yours}; the answer is ${expectedLabel(question)}${toleranceNote(question)}`;
}

/** The question, then where its lab figures came from (the learner's run, or how to get one). */
function withSources(prompt: string, spec: CalcSpec): string {
  const { sources } = figureNotes(spec);
  return sources.length === 0 ? prompt : `${prompt}\n(${sources.join('; ')})`;
}

/**
 * The worked solution (Markdown): the explain template with the values substituted, then the
 * card's own answer text if it has any. For a text card: its answer. An explain line that does
 * not give the answer (or none at all) is preceded by it: the back never leaves it out.
 */
export function solutionText(question: QuizQuestion): string {
  const spec = question.card.calc;
  if (spec === null || question.values === null) return question.card.back;
  const parts: string[] = [];
  const answer = expectedLabel(question);
  if (answer !== null && !spec.explain?.includes('{answer}')) parts.push(`Answer: ${answer}`);
  if (spec.explain) parts.push(renderTemplate(spec.explain, question.values, spec));
  const back = question.card.back.trim();
  if (back) parts.push(renderTemplate(back, question.values, spec));
  // A linked lab whose latest run here did not reproduce: the card says so, with its figure.
  parts.push(...figureNotes(spec).notReproduced);
  return parts.join('\n\n');
}

export interface TagScore {
  tag: string;
  asked: number;
  correct: number;
}

export interface QuizSummary {
  asked: number;
  correct: number;
  /** correct / asked, 0 when nothing was asked. */
  score: number;
  elapsedMs: number;
  /** Tags with a wrong answer this session, lowest accuracy first (at most three). */
  weakestTags: TagScore[];
}

const WEAKEST_TAGS = 3;

export function quizSummary(session: QuizSession, endedAt: number): QuizSummary {
  const byTag = new Map<string, TagScore>();
  for (const answer of session.answers) {
    const card = session.questions[answer.index].card;
    // A card without tags is counted under its deck, so every answer has a place.
    for (const tag of card.tags.length > 0 ? card.tags : [card.deck]) {
      const score = byTag.get(tag) ?? { tag, asked: 0, correct: 0 };
      score.asked += 1;
      if (answer.correct) score.correct += 1;
      byTag.set(tag, score);
    }
  }
  const weakestTags = [...byTag.values()]
    .filter((score) => score.correct < score.asked)
    .sort((a, b) => a.correct / a.asked - b.correct / b.asked || b.asked - a.asked || a.tag.localeCompare(b.tag))
    .slice(0, WEAKEST_TAGS);
  const correct = session.answers.filter((answer) => answer.correct).length;
  const asked = session.answers.length;
  return { asked, correct, score: asked === 0 ? 0 : correct / asked, elapsedMs: Math.max(0, endedAt - session.startedAt), weakestTags };
}
