// A small knowledge base for the quiz end-to-end tests: two calc cards whose values are
// fixed (one-value lists), so the test knows the answers, and one text card.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { QuizResultColumns } from '../../src/store/quiz-results.ts';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { TPOT_SPEC } from '../app/quiz-fixture.ts';

export const QUIZ_CARDS = `---
tags: [metrics]
---

## A request's TTFT is {ttft} s and its {n} tokens end at {total} s. What is its TPOT?
\`\`\`kb-calc
${TPOT_SPEC}\`\`\`

## Little's law: {lam} requests/s arrive and each stays {w} s. How many are in the system?
\`\`\`kb-calc
vars:
  lam: { choose: [40] }
  w: { choose: [2.5] }
answer: lam * w
unit: requests
tolerance: 0.5
explain: L = lambda x W = {lam} x {w} = {answer} requests
\`\`\`

## What does TTFT measure?
The time from submitting a request to its first output token.
`;

/** Writes and scans the knowledge base; returns its root. */
export function quizKb(): string {
  const root = writeKb({ 'cards/metrics.md': QUIZ_CARDS });
  const scan = runKb(['--kb', root, 'scan']);
  if (scan.code !== 0) throw new Error(`kb scan failed: ${scan.stderr}`);
  return root;
}

export function openDb(root: string): Database.Database {
  return new Database(join(root, '.kb/kb.db'), { readonly: true });
}

export type QuizRow = Omit<QuizResultColumns, 'id'> & { front: string };

export function quizRows(root: string): QuizRow[] {
  const db = openDb(root);
  try {
    return db
      .prepare('SELECT q.*, c.front AS front FROM quiz_results q JOIN cards c ON c.id = q.card_id ORDER BY q.id')
      .all() as QuizRow[];
  } finally {
    db.close();
  }
}
