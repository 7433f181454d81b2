// The scroll offset of a screen and its limit (use-scroll.ts). Holding PgDn on a long note
// left the screen past the text's end, over blank rows: the Viewport told a smaller limit
// (the note's rest now drawn) in the same render as the screen took the next key, and that
// key moved the offset within the limit the render before had.
import { Text } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { useScroll, type Scroll } from '../../src/ui/review/use-scroll.ts';
import { tick } from './ink-input.ts';

afterEach(() => cleanup());

/** Renders the hook; `latest()` is the Scroll of the last render. */
function scrollHook(): { latest: () => Scroll } {
  let current: Scroll | null = null;
  function Probe() {
    current = useScroll();
    return <Text>{current.offset}</Text>;
  }
  render(<Probe />);
  return { latest: () => current! };
}

describe('useScroll', () => {
  it('keeps the offset within the latest limit, also for a move made with the Scroll of the render before', async () => {
    const hook = scrollHook();
    hook.latest().onMaxScroll(100);
    await tick();
    hook.latest().by(90);
    await tick();
    expect(hook.latest().offset).toBe(90);
    // One render's effects: the Viewport tells the new limit, then the screen's key moves the offset.
    const before = hook.latest();
    before.onMaxScroll(10);
    before.by(5);
    await tick();
    expect(hook.latest().offset).toBe(10);
    expect(hook.latest().max).toBe(10);
  });

  it('moves within 0 and the limit', async () => {
    const hook = scrollHook();
    hook.latest().onMaxScroll(30);
    await tick();
    hook.latest().by(-5);
    await tick();
    expect(hook.latest().offset).toBe(0);
    hook.latest().by(50);
    await tick();
    expect(hook.latest().offset).toBe(30);
  });
});
