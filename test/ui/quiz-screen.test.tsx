import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { QuizScreen } from '../../src/ui/quiz/QuizScreen.tsx';
import { press, shows, tick, until } from './ink-input.ts';
import { quizCard, SessionDriver, tpotCard } from './quiz-fixture.ts';

afterEach(() => cleanup());

describe('QuizScreen', () => {
  it('takes a typed number for a calc card, asks again for a unit that does not fit, and shows the worked solution', async () => {
    const driver = new SessionDriver([tpotCard()]);
    const { lastFrame, stdin } = render(<QuizScreen driver={driver} now={() => 0} />);
    await tick();
    await shows(lastFrame, 'TTFT 0.5 s, 100 tokens, 2.5 s in all. TPOT?');
    await shows(lastFrame, 'Answer (ms):');
    // The hint names the card's own unit (its examples in ms and GB read as an invitation on a card in tokens).
    await shows(lastFrame, 'type a number (ms if no unit is given) · Enter check · Esc quit');
    await press(stdin, '2', '0', ' ', 'G', 'B');
    await shows(lastFrame, 'Answer (ms): 20 GB');
    // While a number is typed, Esc clears it: the footer says so (it said "Esc quit").
    await shows(lastFrame, 'Enter check · Esc clear');
    await press(stdin, '\r');
    await shows(lastFrame, '"GB" does not convert to ms');
    expect(driver.session.answers).toEqual([]);
    // Editing the answer takes the message away (it stayed above an answer Esc had cleared).
    await press(stdin, '\x7f', '\x7f');
    expect(lastFrame()).not.toContain('does not convert');
    await press(stdin, 'm', 's', '\r');
    expect(driver.calls).toEqual(['calc 20 GB retry', 'calc 20 ms answered']);
    // Typed as kb reads it: said once ("20 ms = 20 ms" said it twice).
    await shows(lastFrame, '✓ Right: 20 ms');
    expect(lastFrame()).not.toContain('20 ms = 20 ms');
    await shows(lastFrame, 'TPOT = (2.5 - 0.5) / 100 s = 20 ms');
    await press(stdin, '\r');
    await shows(lastFrame, 'Quiz done.');
    await shows(lastFrame, 'Score: 1/1 (100%)');
  });

  it('reveals a text card with Space, takes y or n, and goes straight on', async () => {
    const driver = new SessionDriver([quizCard('a'), quizCard('b')]);
    const { lastFrame, stdin } = render(<QuizScreen driver={driver} now={() => 0} />);
    await tick();
    await shows(lastFrame, 'Question a?');
    await press(stdin, '?');
    await shows(lastFrame, 'keys: Space shows a text answer');
    expect(lastFrame()).not.toContain('Answer a.');
    // As in kb review, the next key hides the list and does nothing else (Space showed the
    // answer under a list that stayed: found as a user).
    await press(stdin, ' ');
    expect(lastFrame()).not.toContain('keys: Space shows a text answer');
    expect(lastFrame()).not.toContain('Answer a.');
    await press(stdin, 'y');
    expect(driver.calls).toEqual([]);
    await press(stdin, ' ');
    await shows(lastFrame, 'Answer a.');
    await shows(lastFrame, 'y I knew it');
    await press(stdin, 'n');
    expect(driver.calls).toEqual(['text false']);
    await shows(lastFrame, 'Question b?');
    // The verdict was the learner's own, about question a: question b does not carry it.
    expect(lastFrame()).not.toMatch(/✗ wrong|✓ right/);
    await shows(lastFrame, 'right 0/1');
    await press(stdin, ' ', 'y');
    await shows(lastFrame, 'Score: 1/2 (50%)');
    await shows(lastFrame, 'Weakest tags: metrics 1/2');
  });

  it('counts down and times a question out at zero, showing the solution', async () => {
    let time = 0;
    const driver = new SessionDriver([tpotCard(), quizCard('b')], 45_000);
    const { lastFrame, stdin } = render(<QuizScreen driver={driver} now={() => time} tickMs={10} />);
    await tick();
    await shows(lastFrame, '45s left');
    await press(stdin, '1', '9');
    time = 30_500;
    expect(await until(lastFrame, (text) => text.includes('15s left'))).toContain('15s left');
    time = 45_000;
    await until(lastFrame, (text) => text.includes("Time's up"));
    expect(driver.calls).toEqual(['timeout 45000']);
    await shows(lastFrame, "✗ Time's up: the answer is 20 ms");
    await shows(lastFrame, 'TPOT = (2.5 - 0.5) / 100 s = 20 ms');
    await press(stdin, '\r');
    await shows(lastFrame, 'Question b?');
    await shows(lastFrame, '45s left');
  });

  it('takes a chunk of keys at once (a paste, tmux send-keys): characters, then Enter', async () => {
    const driver = new SessionDriver([tpotCard()]);
    const { lastFrame, stdin } = render(<QuizScreen driver={driver} now={() => 0} />);
    await tick();
    await press(stdin, '25ms\r');
    // With how close an answer must be: 25 refused for 24.7 left the learner guessing why.
    await shows(lastFrame, '✗ Wrong: you typed 25ms = 25 ms; the answer is 20 ms (±1%)');
    expect(driver.calls).toEqual(['calc 25ms answered']);
  });

  it('keeps every key when several arrive before the screen renders again', async () => {
    const driver = new SessionDriver([tpotCard('a'), tpotCard('b')]);
    const { lastFrame, stdin } = render(<QuizScreen driver={driver} now={() => 0} />);
    await tick();
    for (const key of ['2', '0', ' ', 'G', 'B', '\r', '\x7f', '\x7f', 'm', 's', '\r', '\r', '0', '.', '0', '2', 's', '\r']) stdin.write(key);
    await until(lastFrame, (text) => text.includes('✓ Right: 0.02s'));
    expect(driver.calls).toEqual(['calc 20 GB retry', 'calc 20 ms answered', 'calc 0.02s answered']);
    await shows(lastFrame, '✓ Right: 0.02s = 20 ms');
  });

  it('says why a typed answer was not taken directly under the answer line (it was at the bottom, far from it)', async () => {
    const driver = new SessionDriver([tpotCard()]);
    const { lastFrame, stdin } = render(<QuizScreen driver={driver} now={() => 0} />);
    await shows(lastFrame, 'Answer (ms):');
    await press(stdin, '2', '0', ' ', 'G', 'B', '\r');
    const rows = (await shows(lastFrame, '"GB" does not convert to ms')).split('\n');
    const answerRow = rows.findIndex((row) => row.startsWith('Answer (ms): 20 GB'));
    expect(rows[answerRow + 1]).toMatch(/^"GB" does not convert to ms/);
    await press(stdin, '\x7f');
    expect(lastFrame()).not.toContain('does not convert');
  });

  it('on a short screen goes down to the answer line and the reason under it', async () => {
    const driver = new SessionDriver([tpotCard()]);
    const app = render(<QuizScreen driver={driver} now={() => 0} />);
    Object.defineProperty(app.stdout, 'columns', { value: 30, configurable: true });
    Object.defineProperty(app.stdout, 'rows', { value: 10, configurable: true });
    app.stdout.emit('resize');
    await shows(app.lastFrame, 'Answer (ms):');
    await press(app.stdin, '2', '0', ' ', 'G', 'B', '\r');
    const frame = await until(app.lastFrame, (text) => text.includes('a time)'));
    expect(frame).toContain('Answer (ms): 20 GB');
    expect(frame.replace(/\s+/g, ' ')).toContain('"GB" does not convert to ms: answer in ms (a time)');
  });

  it('ends early with Esc and shows what was answered', async () => {
    const driver = new SessionDriver([quizCard('a'), quizCard('b'), quizCard('c')]);
    const { lastFrame, stdin } = render(<QuizScreen driver={driver} now={() => 0} />);
    await tick();
    await press(stdin, ' ', 'y');
    await press(stdin, '\x1b');
    expect(await until(lastFrame, (text) => text.includes('Quiz stopped'))).toContain('Quiz stopped after 1 of 3 questions.');
    await shows(lastFrame, 'Score: 1/1 (100%)');
  });

  it('scrolls an answer taller than the screen', async () => {
    const back = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the answer.`).join('\n\n');
    const driver = new SessionDriver([quizCard('long', { back })]);
    const { lastFrame, stdin } = render(<QuizScreen driver={driver} now={() => 0} />);
    await shows(lastFrame, 'Question long?');
    await press(stdin, ' ');
    await shows(lastFrame, 'more lines');
    expect(lastFrame()).not.toContain('Line 40 of the answer.');
    for (let i = 0; i < 8; i++) await press(stdin, '\x1b[6~');
    await shows(lastFrame, 'Line 40 of the answer.');
    await press(stdin, 'y');
    await shows(lastFrame, 'Score: 1/1');
  });
});

describe('QuizScreen on a narrow terminal', () => {
  it('keeps its top line one line (a phone\'s 40 columns): the title goes, the countdown stays', async () => {
    const driver = new SessionDriver([quizCard('a')], 60_000);
    const app = render(<QuizScreen driver={driver} now={() => 0} />);
    Object.defineProperty(app.stdout, 'columns', { value: 40 });
    app.stdout.emit('resize');
    await tick();
    await shows(app.lastFrame, 'Question a?');
    const top = app.lastFrame()!.split('\n')[0];
    expect(top).toMatch(/^question 1\/1 {2}right 0\/0 +60s left$/);
    expect(top.length).toBeLessThanOrEqual(39);
  });
});
