// Issue #13 (found by CI on a loaded machine): keys that reach kb in one read ("u" and "q"
// typed while the screen was still drawing the bury before them) came to the screen as one
// input "uq", which matched no key, and both were lost. Each key of a chunk now acts in turn.
import { cleanup, render } from 'ink-testing-library';
import type { Key } from 'ink';
import { afterEach, describe, expect, it } from 'vitest';
import { ReviewScreen } from '../../src/ui/review/ReviewScreen.tsx';
import { QuizScreen } from '../../src/ui/quiz/QuizScreen.tsx';
import { splitKeys } from '../../src/ui/screen-input.ts';
import { FakeController, screenCard } from './fake-controller.ts';
import { quizCard, SessionDriver, tpotCard } from './quiz-fixture.ts';
import { press, shows, tick, until } from './ink-input.ts';

afterEach(() => cleanup());

const plain = { return: false, escape: false, ctrl: false, meta: false, shift: false, tab: false } as Key;

describe('keys typed ahead of the screen', () => {
  it('splits a run of characters into its keys, and leaves a single key, a control key and an escape sequence whole', () => {
    expect(splitKeys('uq', plain).map(([input]) => input)).toEqual(['u', 'q']);
    const [, enter] = splitKeys('7\r', plain);
    expect(enter?.[1].return).toBe(true);
    expect(splitKeys('aB', plain)[1]?.[1].shift).toBe(true);
    expect(splitKeys('延迟', plain).map(([input]) => input)).toEqual(['延', '迟']);
    expect(splitKeys('q', plain)).toEqual([['q', plain]]);
    expect(splitKeys('c', { ...plain, ctrl: true })).toHaveLength(1);
    expect(splitKeys('[A', { ...plain, escape: true })).toHaveLength(1);
    // A control character read with other keys is that control key, as Ink gives it alone.
    const [three, stop] = splitKeys('3\x1a', plain);
    expect(three).toEqual(['3', plain]);
    expect(stop?.[0]).toBe('z');
    expect(stop?.[1].ctrl).toBe(true);
    // Keys after Ctrl-Z in the same read are dropped, as a terminal flushes them on suspend.
    expect(splitKeys('3\x1a4', plain).map(([input]) => input)).toEqual(['3', 'z']);
    expect(splitKeys('7\t\n', plain).map(([input, key]) => [input, key.ctrl])).toEqual([['7', false], ['\t', false], ['\n', false]]);
  });

  it('kb review acts on every key of a chunk in order, each on the card the key before left', async () => {
    const controller = new FakeController([screenCard('a'), screenCard('b'), screenCard('c')]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await shows(lastFrame, 'Question a?');
    stdin.write('b 3u');
    await until(lastFrame, () => controller.calls.length === 3);
    expect(controller.calls).toEqual(['bury a', 'rate b 3 0', 'undo']);
    await shows(lastFrame, 'Question b?');
    stdin.write(' 3');
    await until(lastFrame, () => controller.calls.length === 4);
    expect(controller.calls[3]).toBe('rate b 3 0');
    await shows(lastFrame, 'Question c?');
  });

  it('kb quiz too: a typed answer and its Enter in one chunk, then the next key', async () => {
    const driver = new SessionDriver([tpotCard(), quizCard('b')]);
    const { lastFrame, frames, stdin } = render(<QuizScreen driver={driver} now={() => 0} />);
    await shows(lastFrame, 'Answer (ms):');
    stdin.write('20 ms\r\r');
    await shows(lastFrame, 'Question b?');
    expect(driver.calls).toEqual(['calc 20 ms answered']);
    await tick();
    stdin.write(' yq');
    // Every frame drawn, not the last: the q may end the screen before a poll sees its summary.
    await shows(() => frames.join('\n'), 'Quiz done.');
    expect(driver.calls).toEqual(['calc 20 ms answered', 'text true']);
  });
});
