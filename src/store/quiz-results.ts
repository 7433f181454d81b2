// The SQL of kb quiz: the cards a quiz may draw with their memory and failures, and one row
// per answer in quiz_results. The rules (weights, scoring) live in src/srs/quiz-*.ts.
import { cardFromRow, type CardRow } from './card-rows.ts';
import type { KbDatabase } from './db.ts';

/** What a quiz draw weighs about one card: its FSRS memory and its quiz and failure history. */
export interface QuizCardHistory {
  /** FSRS state: 0 new, 1 learning, 2 review, 3 relearning. */
  state: number;
  /** FSRS stability in days (how long the memory lasts); 0 for a new card. */
  stability: number;
  /** FSRS difficulty, 1 (easy) to 10 (hard). */
  difficulty: number;
  reps: number;
  lapses: number;
  /** How many quiz answers the card has. */
  quizzed: number;
  /** Latest failure: a wrong quiz answer or an Again in review (epoch ms), or null. */
  lastFailedAt: number | null;
}

/** A live, unsuspended card with what the quiz draw weighs. */
export interface QuizCandidateRow extends QuizCardHistory {
  card: CardRow;
}

export interface QuizResult {
  sessionId: string;
  cardId: string;
  askedAt: number;
  /** The drawn values of a calc card. */
  vars: Record<string, number> | null;
  expected: number | null;
  /** What was typed; null for a self-graded card or a timeout. */
  answered: string | null;
  correct: boolean;
  durationMs: number;
}

export interface StoredQuizResult extends QuizResult {
  id: number;
}

/** A quiz_results row as stored, column for column. */
export interface QuizResultColumns {
  id: number;
  session_id: string;
  card_id: string;
  asked_at: number;
  vars: string | null;
  expected: number | null;
  answered: string | null;
  correct: number;
  duration_ms: number;
}

type RawCandidate = Parameters<typeof cardFromRow>[0] & {
  f_state: number | null;
  f_stability: number | null;
  f_difficulty: number | null;
  f_reps: number | null;
  f_lapses: number | null;
  quizzed: number;
  last_failed_at: number | null;
};

export function quizResultQueries(db: KbDatabase) {
  const candidates = db.prepare<[], RawCandidate>(
    `SELECT c.*, f.state AS f_state, f.stability AS f_stability, f.difficulty AS f_difficulty, f.reps AS f_reps,
            f.lapses AS f_lapses,
            (SELECT count(*) FROM quiz_results q WHERE q.card_id = c.id) AS quizzed,
            nullif(max(coalesce((SELECT max(q.asked_at) FROM quiz_results q WHERE q.card_id = c.id AND q.correct = 0), 0),
                       coalesce((SELECT max(r.reviewed_at) FROM review_log r WHERE r.card_id = c.id AND r.rating = 1), 0)), 0)
              AS last_failed_at
     FROM cards c LEFT JOIN fsrs f ON f.card_id = c.id
     WHERE c.orphan = 0 AND coalesce(f.suspended, 0) = 0
     ORDER BY c.path, c.line, c.id`,
  );
  const insert = db.prepare(
    `INSERT INTO quiz_results (session_id, card_id, asked_at, vars, expected, answered, correct, duration_ms)
     VALUES (@session_id, @card_id, @asked_at, @vars, @expected, @answered, @correct, @duration_ms)`,
  );
  const bySession = db.prepare<[string], QuizResultColumns>('SELECT * FROM quiz_results WHERE session_id = ? ORDER BY asked_at, id');

  return {
    /** Every card a quiz may ask (live, not suspended), in knowledge-base order. */
    candidates(): QuizCandidateRow[] {
      return candidates.all().map((row) => ({
        card: cardFromRow(row),
        state: row.f_state ?? 0,
        stability: row.f_stability ?? 0,
        difficulty: row.f_difficulty ?? 0,
        reps: row.f_reps ?? 0,
        lapses: row.f_lapses ?? 0,
        quizzed: row.quizzed,
        lastFailedAt: row.last_failed_at,
      }));
    },

    /** Stores one answer; returns its row id. */
    record(result: QuizResult): number {
      const info = insert.run({
        session_id: result.sessionId,
        card_id: result.cardId,
        asked_at: result.askedAt,
        vars: result.vars === null ? null : JSON.stringify(result.vars),
        expected: result.expected,
        answered: result.answered,
        correct: result.correct ? 1 : 0,
        duration_ms: Math.max(0, Math.round(result.durationMs)),
      });
      return Number(info.lastInsertRowid);
    },

    session(sessionId: string): StoredQuizResult[] {
      return bySession.all(sessionId).map((row) => ({
        id: row.id,
        sessionId: row.session_id,
        cardId: row.card_id,
        askedAt: row.asked_at,
        vars: row.vars === null ? null : (JSON.parse(row.vars) as Record<string, number>),
        expected: row.expected,
        answered: row.answered,
        correct: row.correct === 1,
        durationMs: row.duration_ms,
      }));
    },
  };
}

export type QuizResultQueries = ReturnType<typeof quizResultQueries>;
