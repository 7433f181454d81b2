// Scrolled to the bottom, then a larger terminal: the offset comes down to the new limit, so
// the screen fills with the text's last lines (it kept the old offset: a few lines over a
// blank screen, and one k jumped ~30 lines; found as a user at 80x24 -> 200x50).
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { QuizScreen } from '../../src/ui/quiz/QuizScreen.tsx';
import { ReviewScreen } from '../../src/ui/review/ReviewScreen.tsx';
import { FakeController, screenCard } from './fake-controller.ts';
import { blankRun, press, resize, shows, tick, until } from './ink-input.ts';
import { quizCard, SessionDriver } from './quiz-fixture.ts';

afterEach(() => cleanup());

const PAGE_DOWN = '\x1b[6~';
const lines = (what: string) => Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the ${what}.`).join('\n\n');

type Rendered = ReturnType<typeof render>;

describe('a larger terminal while scrolled', () => {
  it('kb review: the card fills the screen with its last lines, and k moves one line', async () => {
    const app = render(<ReviewScreen controller={new FakeController([screenCard('a', { full: lines('note') })])} startedAt={0} now={() => 0} />);
    resize(app, 80, 24);
    await shows(app.lastFrame, 'Question a?');
    await press(app.stdin, ' ', 'f');
    await shows(app.lastFrame, 'Line 1 of the note.');
    for (let i = 0; i < 10; i++) await press(app.stdin, PAGE_DOWN);
    await shows(app.lastFrame, 'Line 40 of the note.');
    resize(app, 200, 50);
    // 79 rows of text at most, 44 on screen: lines 19-40 fill it.
    const filled = await until(app.lastFrame, (frame) => frame.includes('Line 19 of the note.'));
    expect(filled).toContain('Line 40 of the note.');
    expect(blankRun(filled)).toBeLessThan(3);
    await press(app.stdin, 'k');
    await shows(app.lastFrame, 'Line 18 of the note.');
    expect(app.lastFrame()).not.toContain('Line 40 of the note.');
  });

  it('kb review: the key list, scrolled on a short terminal, shows whole on a tall one', async () => {
    const app = render(<ReviewScreen controller={new FakeController([screenCard('a')])} startedAt={0} now={() => 0} />);
    resize(app, 80, 12);
    await shows(app.lastFrame, 'Question a?');
    await press(app.stdin, '?');
    await shows(app.lastFrame, 'Keys');
    for (let i = 0; i < 5; i++) await press(app.stdin, PAGE_DOWN);
    await shows(app.lastFrame, 'back to the shell');
    expect(app.lastFrame()).not.toContain('Keys');
    resize(app, 80, 40);
    const whole = await until(app.lastFrame, (frame) => frame.includes('Keys'));
    expect(whole).toContain('Keys');
    expect(whole).toContain('back to the shell');
  });

  it('kb review: the lab panel fills the screen with its report\'s last lines', async () => {
    const controller = new FakeController([screenCard('a', { lab: 'ttft-breakdown' })]);
    const app = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    resize(app, 80, 24);
    await shows(app.lastFrame, 'Question a?');
    await press(app.stdin, 'l');
    controller.labs.finish({ chart: Array.from({ length: 40 }, (_, i) => `chart row ${i + 1}`) });
    await shows(app.lastFrame, 'chart row 1');
    for (let i = 0; i < 10; i++) await press(app.stdin, PAGE_DOWN);
    await shows(app.lastFrame, 'Run #7 stored');
    resize(app, 200, 50);
    const filled = await until(app.lastFrame, (frame) => frame.includes('chart row 15'));
    expect(filled).toContain('Run #7 stored');
    expect(blankRun(filled)).toBeLessThan(3);
  });

  it('kb quiz: the answer fills the screen with its last lines', async () => {
    const app = render(<QuizScreen driver={new SessionDriver([quizCard('long', { back: lines('answer') })])} now={() => 0} />);
    resize(app, 80, 24);
    await shows(app.lastFrame, 'Question long?');
    await press(app.stdin, ' ');
    for (let i = 0; i < 10; i++) await press(app.stdin, PAGE_DOWN);
    await shows(app.lastFrame, 'Line 40 of the answer.');
    resize(app, 200, 50);
    const filled = await until(app.lastFrame, (frame) => frame.includes('Line 20 of the answer.'));
    expect(filled).toContain('Line 40 of the answer.');
    expect(blankRun(filled)).toBeLessThan(3);
  });
});
