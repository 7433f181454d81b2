// A driver for the quiz screen tests: the real session functions, no database.
import { seededRandom } from '../../src/kb/seeded-random.ts';
import {
  answerCalc,
  createQuizSession,
  currentQuestion,
  gradeText,
  quizSummary,
  timeOut,
  type QuizCard,
  type QuizSession,
  type Timing,
} from '../../src/app/quiz/quiz-session.ts';
import type { QuizDriver } from '../../src/ui/quiz/QuizScreen.tsx';
import type { FakeLabs } from './fake-labs.ts';

export { quizCard, tpotCard } from '../app/quiz-fixture.ts';

/** The quiz session functions behind the screen's driver interface, recording each call. */
export class SessionDriver implements QuizDriver {
  session: QuizSession;
  readonly calls: string[] = [];
  labs?: FakeLabs;

  constructor(cards: QuizCard[], timeLimitMs: number | null = null) {
    this.session = createQuizSession(cards, { id: 's1', seed: 1, startedAt: 0, timeLimitMs }, seededRandom(1));
  }

  current() {
    return currentQuestion(this.session);
  }

  answerCalc(typed: string, timing: Timing) {
    const attempt = answerCalc(this.session, typed, timing);
    this.calls.push(`calc ${typed} ${attempt.kind}`);
    if (attempt.kind === 'answered') this.session = attempt.session;
    return attempt;
  }

  gradeText(correct: boolean, timing: Timing) {
    const graded = gradeText(this.session, correct, timing);
    this.calls.push(`text ${correct}`);
    this.session = graded.session;
    return { answer: graded.answer, scheduled: null };
  }

  timeOut(timing: Timing) {
    const result = timeOut(this.session, timing);
    this.calls.push(`timeout ${timing.answeredAt - timing.askedAt}`);
    this.session = result.session;
    return { answer: result.answer, scheduled: null };
  }

  summary(now: number) {
    return quizSummary(this.session, now);
  }
}
