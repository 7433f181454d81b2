// The real `kb review` in tmux on a card whose question is pages long and whose answer is over
// 16 KB (drawn a screen at a time): paged down past the question, the answer stood as blank
// rows at 80x24 and 100x30 (its lines were picked as if it started at the card's top). And a
// question over 16 KB too: once it was drawn to its end, the last row counted the answer's
// lines drawn so far as all there were ("↓ 39 more lines", then 104, 85, ...).
import { afterEach, describe, expect, it } from 'vitest';
import { writeKb } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb, type TerminalSize } from '../helpers/tmux.ts';

const question = (words: string) => Array.from({ length: 80 }, (_, i) => `Question line ${i + 1}: ${words}`).join('\n');
const QUESTION = question('why does this question run on for so many rows?');
// Over 16 KB: drawn a screen at a time as well.
const LONG_QUESTION = question(`${'why does this question run on and on for so many rows '.repeat(4)}问题。`);
const ANSWER = Array.from({ length: 80 }, (_, i) =>
  `Answer paragraph ${i + 1}: decode reads every weight once per step, so the batch shares that read, and a larger batch costs little more per step until compute is the bound. ` +
  `答案第${i + 1}段：解码阶段受内存带宽限制，批处理让多个序列共享一次读取，直到算力成为瓶颈。`,
).join('\n\n');
// A setext heading: the note's H1, and so its question, is all 80 lines.
const note = (front: string) => `---\ntags: [long]\n---\n${front}\n===\n\n## Answer\n\n${ANSWER}\n`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The longest run of blank rows on the screen, above its last drawn row. */
function blankRun(screen: string): number {
  let longest = 0;
  let run = 0;
  for (const row of screen.trimEnd().split('\n')) {
    run = row.trim() === '' ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** The screen without its first row (the header's clock ticks). */
const body = (screen: string) => screen.split('\n').slice(1).join('\n');

/** Sends `key`, then waits for the screen to change and stay the same a while (a page's lines are drawn just after it). */
async function pressAndSettle(tmux: TmuxKb, key: string): Promise<string> {
  const before = body(tmux.screen());
  tmux.send(key);
  return settled(tmux, (screen) => body(screen) !== before);
}

/** Waits for a screen that passes `changed`, then for the screen to stay the same a while. */
async function settled(tmux: TmuxKb, changed: (screen: string) => boolean): Promise<string> {
  await tmux.waitFor(changed);
  let last = tmux.screen();
  for (let same = 0; same < 3; ) {
    await sleep(100);
    const now = tmux.screen();
    same = body(now) === body(last) ? same + 1 : 0;
    last = now;
  }
  return last;
}

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

describe('kb review of a card with a question pages long and a long answer', () => {
  expect(ANSWER.length).toBeGreaterThan(16_384);
  expect(LONG_QUESTION.length).toBeGreaterThan(16_384);
  const cases: Array<{ size: TerminalSize; front: string; what: string }> = [
    { size: { columns: 80, rows: 24 }, front: QUESTION, what: 'question of 80 lines' },
    { size: { columns: 100, rows: 30 }, front: QUESTION, what: 'question of 80 lines' },
    { size: { columns: 80, rows: 24 }, front: LONG_QUESTION, what: 'question over 16 KB' },
  ];
  for (const { size, front, what } of cases) {
    it(`at ${size.columns}x${size.rows}, a ${what}: PgDn shows every paragraph of the answer under it, no page blank, no count of lines not drawn`, async () => {
      const root = writeKb({ 'notes/long.md': note(front) });
      tmux = new TmuxKb();
      tmux.startWithStatus(root, ['review'], size);
      await tmux.waitFor('Question line 1:');
      tmux.send('Space');
      await tmux.waitFor('1 Again');
      const seen = new Set<number>();
      let screen = '';
      for (let page = 0; page < 80 && !screen.includes('(k to scroll back)'); page++) {
        screen = await pressAndSettle(tmux, 'PageDown');
        expect(blankRun(screen), screen).toBeLessThan(3);
        // Far from the answer's end its rest is not drawn yet: how many lines it makes is not known.
        if (Math.max(0, ...seen) < 40) expect(screen, screen).toContain('↓ more lines (');
        for (const match of screen.matchAll(/Answer paragraph (\d+):/g)) seen.add(Number(match[1]));
      }
      expect(screen).toContain('Answer paragraph 80:');
      expect(screen).toContain('答案第80段');
      expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
      tmux.send('q');
      await tmux.waitFor('exit=0');
    }, TMUX_TEST_TIMEOUT_MS);
  }
});

// Read to the answer's end, then the terminal made 90x30: the card showed from its top (the
// texts, drawn afresh at the new width, measured a few rows, and the offset came down to them).
describe('kb review of such a card on a terminal resized while paging', () => {
  it('keeps the answer\'s end on screen at another width, and pages back up from there', async () => {
    const root = writeKb({ 'notes/long.md': note(LONG_QUESTION) });
    tmux = new TmuxKb();
    tmux.startWithStatus(root, ['review'], { columns: 80, rows: 24 });
    await tmux.waitFor('Question line 1:');
    tmux.send('Space');
    await tmux.waitFor('1 Again');
    // PgDn held down.
    tmux.send(...Array.from({ length: 60 }, () => 'PageDown'));
    await tmux.waitFor((screen) => screen.includes('Answer paragraph 80:') && screen.includes('(k to scroll back)'));
    tmux.tmux(['resize-window', '-t', tmux.session, '-x', '90', '-y', '30']);
    const resized = await settled(tmux, (screen) => screen.split('\n')[0].trimEnd().length > 80);
    expect(blankRun(resized), resized).toBeLessThan(3);
    expect(resized).toContain('Answer paragraph 80:');
    expect(resized).not.toContain('Question line');
    const up = await pressAndSettle(tmux, 'PageUp');
    expect(blankRun(up), up).toBeLessThan(3);
    expect(up).toMatch(/Answer paragraph 7\d:/);
    tmux.send('q');
    await tmux.waitFor('exit=0');
  }, TMUX_TEST_TIMEOUT_MS);
});
