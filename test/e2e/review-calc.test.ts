// Calc cards in kb review and kb due: the day's values in place of {placeholders}, a typed
// answer checked as kb quiz checks it, the worked explain line, and a suggested rating the
// learner may take (Space) or overrule (1-4). Space before typing shows the answer unchecked.
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { reviewDayLabel } from '../../src/srs/study-day.ts';
import { expectedLabel } from '../../src/app/quiz/quiz-session.ts';
import { dailyCalc } from '../../src/app/review/review-calc.ts';
import { cardQueries } from '../../src/store/card-rows.ts';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';
import { openDb } from './review-fixture.ts';

const calcCard = (name: string) => `## ${name}: {b} requests of {n} tokens each. How many tokens in all?
\`\`\`kb-calc
vars:
  b: { choose: [4, 8, 16] }
  n: { min: 100, max: 900, step: 100 }
answer: b * n
unit: tokens
tolerance: 0
explain: "Tokens = {b} x {n} = {answer} tokens"
\`\`\`
`;

function calcKb() {
  const root = writeKb({ 'cards/sums.md': ['First', 'Second', 'Third'].map(calcCard).join('\n') });
  expect(runKb(['--kb', root, 'scan']).code).toBe(0);
  const db = openDb(root);
  const ids = (db.prepare('SELECT id FROM cards ORDER BY line').pluck().all() as string[]);
  const day = reviewDayLabel(Date.now(), defaultConfig.dayStartsAt);
  const questions = ids.map((id) => dailyCalc(cardQueries(db).find(id)!, day)!);
  db.close();
  return { root, ids, questions };
}

function ratings(root: string): Array<{ card_id: string; rating: number }> {
  const db = openDb(root);
  const rows = db.prepare('SELECT card_id, rating FROM review_log ORDER BY reviewed_at, rowid').all() as Array<{ card_id: string; rating: number }>;
  db.close();
  return rows;
}

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

describe('calc cards in kb review and kb due', () => {
  it('kb due lists the numbers kb review asks today', () => {
    const { root, questions } = calcKb();
    const due = JSON.parse(runKb(['--kb', root, 'due', '--json']).stdout) as { cards: Array<{ front: string }> };
    expect(due.cards.map((card) => card.front)).toEqual(questions.map((question) => question.prompt));
    expect(due.cards[0].front).toMatch(/^First: \d+ requests of \d+ tokens each/);
    expect(runKb(['--kb', root, 'due']).stdout).not.toContain('{b}');
  });

  it('asks with the values, checks a typed answer, shows the worked line, and suggests the rating', async () => {
    const { root, ids, questions } = calcKb();
    const [first, second, third] = questions;
    tmux = new TmuxKb();
    tmux.start(root, 'review');

    // Wrong: the verdict, the explain line with the values, Again suggested; Space takes it.
    let screen = await tmux.waitFor(first.prompt.slice(0, 40));
    expect(screen).not.toContain('{b}');
    expect(screen).toContain('Answer (tokens):');
    tmux.type('1');
    await tmux.waitFor('Answer (tokens): 1');
    tmux.send('Enter');
    screen = await tmux.waitFor('✗ Wrong');
    expect(screen).toContain(`✗ Wrong: you typed 1 = 1 tokens; the answer is ${expectedLabel(first)}`);
    expect(screen).toContain(`Tokens = ${first.values!.b} x ${first.values!.n} = ${first.expected} tokens`);
    expect(screen).toMatch(/1 Again \S+ ← Space/);
    tmux.send('Space');

    // Right, typed with its unit; the suggestion is Good, and 4 overrules it.
    await tmux.waitFor(second.prompt.slice(0, 40));
    tmux.type(`${second.expected} tokens`);
    tmux.send('Enter');
    screen = await tmux.waitFor('✓ Right');
    expect(screen).toMatch(/3 Good \S+ ← Space/);
    tmux.send('4');

    // Space before typing: the worked answer, unchecked; Space then means Good. A unit of the
    // wrong kind asks again instead of counting as wrong.
    await tmux.waitFor(third.prompt.slice(0, 40));
    tmux.type('5 GB');
    tmux.send('Enter');
    const refused = (await tmux.waitFor('"GB" does not convert to tokens')).split('\n');
    // Under the answer line, as kb quiz shows it (it was on the status line, above the card).
    const answerRow = refused.findIndex((row) => /Answer \(tokens\): 5 GB/.test(row));
    expect(refused[answerRow + 1]).toMatch(/^\s*"GB" does not convert to tokens/);
    tmux.send('Escape');
    await tmux.waitFor((shown) => /Answer \(tokens\):\s*$/m.test(shown));
    tmux.send('Space');
    screen = await tmux.waitFor('Tokens = ');
    expect(screen).toContain(`Tokens = ${third.values!.b} x ${third.values!.n} = ${third.expected} tokens`);
    expect(screen).not.toMatch(/✓|✗/);
    expect(screen).not.toContain('← Space');
    tmux.send('Space');

    // The card failed first comes back the same day with the same numbers, unanswered.
    screen = await tmux.waitFor(first.prompt.slice(0, 40));
    expect(screen).toContain('Answer (tokens):');
    tmux.send('q');
    await tmux.waitForExit();

    expect(ratings(root)).toEqual([
      { card_id: ids[0], rating: 1 },
      { card_id: ids[1], rating: 4 },
      { card_id: ids[2], rating: 3 },
    ]);
  }, TMUX_TEST_TIMEOUT_MS);
});
