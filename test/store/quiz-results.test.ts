import { describe, expect, it } from 'vitest';
import { cardQueries, type CardContent } from '../../src/store/card-rows.ts';
import { openDatabase, type KbDatabase } from '../../src/store/db.ts';
import { fsrsQueries } from '../../src/store/review-writes.ts';
import type { FsrsState } from '../../src/model/fsrs-state.ts';
import { quizResultQueries } from '../../src/store/quiz-results.ts';
import { quizAccuracyByTag } from '../../src/store/quiz-stats.ts';

const NEW: FsrsState = { due: 0, stability: 0, difficulty: 0, elapsedDays: 0, scheduledDays: 0, learningSteps: 0, reps: 0, lapses: 0, state: 0, lastReview: null };

function content(id: string, tags: string[], deck = 'metrics'): CardContent {
  return {
    id, kind: 'card', path: `cards/${deck}.md`, line: 1, deck, front: `Q ${id}?`, back: `A ${id}.`, full: '', tags,
    lab: null, calc: null, contentHash: id, fileSize: 1, fileMtimeMs: 1, idInFile: true,
  };
}

function kbWith(ids: Array<[string, string[], string?]>): KbDatabase {
  const db = openDatabase(':memory:');
  const cards = cardQueries(db);
  const fsrs = fsrsQueries(db);
  for (const [id, tags, deck] of ids) {
    cards.insert(content(id, tags, deck), 1);
    fsrs.write(id, NEW);
  }
  return db;
}

const result = (cardId: string, correct: boolean, askedAt: number) => ({
  sessionId: 's1', cardId, askedAt, vars: null, expected: null, answered: null, correct, durationMs: 1500,
});

describe('quiz results', () => {
  it('stores answers and reads a session back', () => {
    const db = kbWith([['a', ['metrics']]]);
    const q = quizResultQueries(db);
    q.record({ sessionId: 's1', cardId: 'a', askedAt: 10, vars: { ttft: 0.5, n: 100 }, expected: 20, answered: '20ms', correct: true, durationMs: 2499.6 });
    q.record({ ...result('a', false, 20), sessionId: 's2' });
    expect(q.session('s1')).toEqual([
      { id: 1, sessionId: 's1', cardId: 'a', askedAt: 10, vars: { ttft: 0.5, n: 100 }, expected: 20, answered: '20ms', correct: true, durationMs: 2500 },
    ]);
  });

  it('lists candidates with their memory, quiz count and latest failure; leaves out suspended and orphaned cards', () => {
    const db = kbWith([['a', []], ['b', []], ['c', []], ['d', []]]);
    const q = quizResultQueries(db);
    q.record(result('a', false, 100));
    q.record(result('a', true, 200));
    q.record(result('b', true, 300));
    db.prepare(
      `INSERT INTO review_log (uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id)
       VALUES ('u1', 'b', 1, 400, 0, '{}', '{}', 'dev'), ('u2', 'b', 3, 500, 0, '{}', '{}', 'dev')`,
    ).run();
    db.prepare("UPDATE fsrs SET suspended = 1 WHERE card_id = 'c'").run();
    cardQueries(db).markOrphan('d', 2);
    const rows = q.candidates();
    expect(rows.map((row) => [row.card.id, row.quizzed, row.lastFailedAt])).toEqual([
      ['a', 2, 100],
      ['b', 1, 400],
    ]);
  });
});

describe('quiz accuracy by tag', () => {
  it('counts each tag of a card (its deck when it has none), weakest first, since a time', () => {
    const db = kbWith([['a', ['metrics', 'ttft']], ['b', ['metrics']], ['c', [], 'serving']]);
    const q = quizResultQueries(db);
    q.record(result('a', true, 100));
    q.record(result('a', false, 200));
    q.record(result('b', true, 300));
    q.record(result('c', false, 400));
    expect(quizAccuracyByTag(db)).toEqual([
      { tag: 'serving', asked: 1, correct: 0, accuracy: 0 },
      { tag: 'ttft', asked: 2, correct: 1, accuracy: 0.5 },
      { tag: 'metrics', asked: 3, correct: 2, accuracy: 2 / 3 },
    ]);
    expect(quizAccuracyByTag(db, 250)).toEqual([
      { tag: 'serving', asked: 1, correct: 0, accuracy: 0 },
      { tag: 'metrics', asked: 1, correct: 1, accuracy: 1 },
    ]);
    expect(quizAccuracyByTag(kbWith([]))).toEqual([]);
  });
});
