// One `kb quiz` run against a knowledge base: picks the cards, holds the session, stores
// every answer at once (one quiz_results row each), and with --schedule also rates the card
// (wrong = Again, right = Good) through the review service, as kb review would.
import { withLabFigures } from '../../kb/calc-figures.ts';
import { randomUUID } from 'node:crypto';
import { seededRandom } from '../../kb/seeded-random.ts';
import type { CardLabs } from '../card-labs/card-labs.ts';
import { quizResultQueries, type QuizResultQueries } from '../../store/quiz-results.ts';
import { cardQueries } from '../../store/card-rows.ts';
import { matchesFilter, pickCards, type PickFilter } from '../../srs/quiz-pick.ts';
import {
  answerCalc,
  createQuizSession,
  currentQuestion,
  gradeText,
  quizSummary,
  timeOut,
  type CalcAttempt,
  type QuizAnswer,
  type QuizQuestion,
  type QuizSession,
  type QuizSummary,
  type Timing,
} from './quiz-session.ts';
import { ReviewService, type ReviewTarget } from '../review/review-service.ts';
import { GRADE_NAMES, type Grade } from '../../model/fsrs-state.ts';

export interface QuizRequest extends PickFilter {
  /** How many questions at most. */
  count: number;
  timeLimitMs: number | null;
  seed: number;
  /** Whether answers move the FSRS schedule. */
  schedule: boolean;
  /** Only cards with a kb-calc block. */
  calcOnly?: boolean;
}

export class NoQuizCardsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoQuizCardsError';
  }
}

export interface RecordedAnswer {
  answer: QuizAnswer;
  /** With --schedule: the grade given to the card ('again' or 'good'); else null. */
  scheduled: string | null;
}

export class QuizRun {
  private state: QuizSession;
  private readonly results: QuizResultQueries;
  private readonly reviews: ReviewService | null;
  /** Set by kb quiz's screen so l can run a card's lab; --json has no use for it. */
  labs?: CardLabs;
  /**
   * Why the quiz asks fewer questions than -n asked for ("only 2 cards match --deck d: 2
   * questions, not 3"), else null: a quiz of 2 after -n 3 said nothing, as if questions were lost.
   */
  readonly shortfall: string | null;

  constructor(target: ReviewTarget, request: QuizRequest, now: number, sessionId: string = randomUUID()) {
    this.results = quizResultQueries(target.db);
    this.reviews = request.schedule ? new ReviewService(target) : null;
    const all = this.results.candidates();
    if (all.length === 0) {
      // kb quiz has just scanned, so "run kb scan first" sent the user to a command that changes
      // nothing; and with every card suspended it said there were none (found as a user).
      const live = cardQueries(target.db).liveCount();
      throw new NoQuizCardsError(live === 0
        ? 'no cards in this knowledge base yet: add one with kb add "Question?" --answer "…"'
        : `every card is suspended (${live}), and kb quiz asks no suspended card: kb cards --state suspended lists them, kb unsuspend ID brings one back`);
    }
    const eligible = all
      .filter((row) => matchesFilter(row.card, request))
      .filter((row) => !request.calcOnly || row.card.calc !== null);
    if (eligible.length === 0) throw new NoQuizCardsError(`no cards match ${describeFilter(request)}`);
    const rng = seededRandom(request.seed);
    const picked = pickCards(eligible.map((row) => ({ ...row, id: row.card.id, tags: row.card.tags, deck: row.card.deck })), request.count, rng, now);
    this.state = createQuizSession(
      // A calc card asks with the learner's own lab figures where it takes any.
      picked.map((row) => ({ ...row.card, calc: withLabFigures(row.card.calc, target.db, now, target.root) })),
      { id: sessionId, seed: request.seed, startedAt: now, timeLimitMs: request.timeLimitMs },
      rng,
    );
    this.shortfall = eligible.length < request.count ? shortfall(request, eligible.length, this.state.questions.length, all.length < cardQueries(target.db).liveCount()) : null;
  }

  get session(): QuizSession {
    return this.state;
  }

  current(): QuizQuestion | null {
    return currentQuestion(this.state);
  }

  /** A typed answer to a calc card: a retry message, or the stored answer. */
  answerCalc(typed: string, timing: Timing): CalcAttempt & { scheduled?: string | null } {
    const attempt = answerCalc(this.state, typed, timing);
    if (attempt.kind === 'retry') return attempt;
    this.state = attempt.session;
    return { ...attempt, scheduled: this.store(attempt.answer, timing.answeredAt) };
  }

  /** The learner's verdict on a text card. */
  gradeText(correct: boolean, timing: Timing): RecordedAnswer {
    const graded = gradeText(this.state, correct, timing);
    this.state = graded.session;
    return { answer: graded.answer, scheduled: this.store(graded.answer, timing.answeredAt) };
  }

  timeOut(timing: Timing): RecordedAnswer {
    const result = timeOut(this.state, timing);
    this.state = result.session;
    return { answer: result.answer, scheduled: this.store(result.answer, timing.answeredAt) };
  }

  summary(now: number): QuizSummary {
    return quizSummary(this.state, now);
  }

  private store(answer: QuizAnswer, now: number): string | null {
    const question = this.state.questions[answer.index];
    this.results.record({
      sessionId: this.state.id,
      cardId: answer.cardId,
      askedAt: answer.askedAt,
      vars: question.values,
      expected: answer.expected,
      answered: answer.typed,
      correct: answer.correct,
      durationMs: answer.durationMs,
    });
    if (!this.reviews) return null;
    const grade: Grade = answer.correct ? 3 : 1;
    this.reviews.rate(answer.cardId, grade, now, answer.durationMs);
    return GRADE_NAMES[grade];
  }
}

/**
 * "only 2 cards match --deck d: 2 questions, not 3"; with no filter "only 2 cards in this
 * knowledge base"; either with "(suspended ones aside)" where some card is suspended. `asked` can be fewer than `matched`: a calc card
 * that never draws a finite answer is left out.
 */
function shortfall(request: QuizRequest, matched: number, asked: number, someSuspended: boolean): string {
  const cards = matched === 1 ? '1 card' : `${matched} cards`;
  const filtered = request.tag !== undefined || request.deck !== undefined || request.calcOnly;
  // Suspended cards are never asked: said with a filter too (a suspended calc card left
  // "only 1 card matches --calc" unexplained).
  const aside = someSuspended ? ' (suspended ones aside)' : '';
  const which = filtered ? `${cards} ${matched === 1 ? 'matches' : 'match'} ${describeFilter(request)}${aside}` : `${cards} in this knowledge base${aside}`;
  return `only ${which}: ${asked === 1 ? '1 question' : `${asked} questions`}, not ${request.count}`;
}

function describeFilter(request: QuizRequest): string {
  const parts: string[] = [];
  if (request.tag !== undefined) parts.push(`--tag ${request.tag}`);
  if (request.deck !== undefined) parts.push(`--deck ${request.deck}`);
  if (request.calcOnly) parts.push('--calc');
  return parts.length > 0 ? parts.join(' ') : 'this quiz';
}
