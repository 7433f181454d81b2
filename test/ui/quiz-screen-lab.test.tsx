// `l` in kb quiz: the card's lab runs in place and the question comes back as it was; the
// countdown and the answer time stand still while the lab panel is open.
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { QuizScreen } from '../../src/ui/quiz/QuizScreen.tsx';
import { FakeLabs, progress } from './fake-labs.ts';
import { quizCard, SessionDriver, tpotCard } from './quiz-fixture.ts';
import { press, shows, tick } from './ink-input.ts';

afterEach(() => cleanup());

function labDriver(cards: Parameters<typeof quizCard>[1][], timeLimitMs: number | null = null): SessionDriver {
  const driver = new SessionDriver(cards.map((overrides, i) => quizCard(String.fromCharCode(97 + i), overrides)), timeLimitMs);
  driver.labs = new FakeLabs();
  return driver;
}

describe('QuizScreen: a card\'s lab', () => {
  it('runs the lab from a text question, pauses the countdown, and comes back to the same question', async () => {
    let time = 0;
    const driver = labDriver([{ lab: 'ttft-breakdown' }], 45_000);
    const labs = driver.labs as FakeLabs;
    const { lastFrame, stdin } = render(<QuizScreen driver={driver} now={() => time} tickMs={10} />);
    await shows(lastFrame, 'l run lab');
    time = 5_000;
    await shows(lastFrame, '40s left');
    await press(stdin, 'l');
    await shows(lastFrame, 'Running lab ttft-breakdown');
    labs.report(progress(64));
    await shows(lastFrame, '64/256 requests');
    // Far past the limit while the lab runs: no time-out.
    time = 120_000;
    await tick(50);
    labs.finish();
    await shows(lastFrame, 'Verdict: reproduced (2/2 expectations hold)');
    expect(driver.calls).toEqual([]);
    await press(stdin, 'x');
    await shows(lastFrame, 'Question a?');
    await shows(lastFrame, '40s left');
    expect(lastFrame()).not.toContain('Answer a.');
    time = 122_000;
    await press(stdin, ' ');
    // The answer shows the lab's latest result.
    await shows(lastFrame, 'Lab: ttft-breakdown · reproduced 2/2 · <1m ago');
    await press(stdin, 'y');
    expect(driver.calls).toEqual(['text true']);
    // 5 s before the lab and 2 s after it.
    expect(driver.session.answers[0].durationMs).toBe(7_000);
  });

  it('runs it from the result of a calc card, but l is typed into a calc answer once a number is started', async () => {
    const driver = new SessionDriver([{ ...tpotCard(), lab: 'ttft-breakdown' }]);
    const labs = new FakeLabs();
    driver.labs = labs;
    const { lastFrame, stdin } = render(<QuizScreen driver={driver} now={() => 0} />);
    await shows(lastFrame, 'Answer (ms):');
    await press(stdin, '2', 'l');
    expect(labs.calls).toEqual([]);
    await shows(lastFrame, 'Answer (ms): 2l');
    await press(stdin, '\x7f', '\x7f', '2', '0', '\r');
    await shows(lastFrame, '✓ Right: 20 = 20 ms');
    await press(stdin, 'l');
    expect(labs.calls).toEqual(['run ttft-breakdown']);
    await press(stdin, '\x1b');
    await shows(lastFrame, 'Verdict: incomplete');
    expect(labs.calls).toEqual(['run ttft-breakdown', 'abort ttft-breakdown']);
    await press(stdin, 'q');
    // Back on the result, not ended: q left the panel only.
    await shows(lastFrame, '✓ Right: 20 = 20 ms');
    expect(lastFrame()).not.toContain('Quiz done.');
  });

  it('has a short message for a card without a lab', async () => {
    const driver = labDriver([{}]);
    const { lastFrame, stdin } = render(<QuizScreen driver={driver} now={() => 0} />);
    await shows(lastFrame, 'Question a?');
    expect(lastFrame()).not.toContain('l run lab');
    await press(stdin, 'l');
    await shows(lastFrame, 'this card has no lab');
    expect((driver.labs as FakeLabs).calls).toEqual([]);
  });
});
