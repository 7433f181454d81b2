// NO_COLOR (no-color.org) on the full screens: the real `kb review` and `kb quiz` in tmux, read
// with capture-pane -e, which keeps the escape codes. Set (not empty), no colour is drawn, bold,
// dim and underline kept so the focus still shows; empty (as unset), the screens keep their
// colours. (kb stats honoured it; the screens drew their colours all the same.)
import { afterEach, describe, expect, it } from 'vitest';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';
import { quizKb } from './quiz-fixture.ts';
import { reviewKb } from './review-fixture.ts';

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

/** The screen with its escape codes. */
function coloured(driver: TmuxKb): string {
  return driver.tmux(['capture-pane', '-e', '-p', '-t', driver.session]);
}

/**
 * The colours an SGR sequence sets: 30-37, 90-97 (foreground), 40-47, 100-107 (background), and
 * 38/48/58 with their arguments (256 and true colour). 39 and 49 (the default colours, which
 * tmux writes itself around every style) and bold, dim, underline, inverse are not colours.
 */
function colours(screen: string): string[] {
  const found: string[] = [];
  for (const [, params] of screen.matchAll(/\x1b\[([0-9;]*)m/g)) {
    const codes = params!.split(';').map(Number);
    for (let at = 0; at < codes.length; at++) {
      const code = codes[at]!;
      if (code === 38 || code === 48 || code === 58) {
        found.push(codes.slice(at, at + (codes[at + 1] === 5 ? 3 : 5)).join(';'));
        at += codes[at + 1] === 5 ? 2 : 4;
      } else if ((code >= 30 && code <= 37) || (code >= 40 && code <= 47) || (code >= 90 && code <= 97) || (code >= 100 && code <= 107)) {
        found.push(String(code));
      }
    }
  }
  return found;
}

/**
 * The pane's environment: NO_COLOR as the case has it, and FORCE_COLOR, since the tmux server
 * passes on the test runner's CI, under which chalk draws no style at all (supports-color).
 * kb takes the colours out itself, whatever chalk's level.
 */
const paneEnv = (noColor: string) => ({ NO_COLOR: noColor, FORCE_COLOR: '1' });

const hasBold = (screen: string) => /\x1b\[(?:[0-9;]*;)?1(?:;[0-9;]*)?m/.test(screen);

describe('NO_COLOR on the review and quiz screens', () => {
  // Empty is as good as unset (no-color.org), and overrides a NO_COLOR the tmux server would
  // take from the shell that runs the tests.
  for (const [noColor, wanted] of [['1', false], ['', true]] as const) {
    it(`kb review with NO_COLOR=${JSON.stringify(noColor)} draws ${wanted ? 'its colours' : 'no colour, bold kept'}`, async () => {
      const kb = reviewKb();
      tmux = new TmuxKb();
      tmux.startWithStatus(kb.root, ['review'], { columns: 100, rows: 30 }, paneEnv(noColor));
      await tmux.waitFor('What is TTFT');
      const question = coloured(tmux);
      tmux.send('Space');
      await tmux.waitFor(/1 Again .*4 Easy/);
      const answer = coloured(tmux);
      for (const screen of [question, answer]) {
        if (wanted) expect(colours(screen), screen).not.toEqual([]);
        else expect(colours(screen), screen).toEqual([]);
        expect(hasBold(screen)).toBe(true);
      }
      tmux.send('q');
      await tmux.waitFor('exit=0');
    }, TMUX_TEST_TIMEOUT_MS);
  }

  for (const [noColor, wanted] of [['1', false], ['', true]] as const) {
    it(`kb quiz with NO_COLOR=${JSON.stringify(noColor)} draws ${wanted ? 'its colours' : 'no colour'}`, async () => {
      const root = quizKb();
      tmux = new TmuxKb();
      tmux.startWithStatus(root, ['quiz', '-n', '1', '--seed', '11'], { columns: 100, rows: 30 }, paneEnv(noColor));
      await tmux.waitFor('question 1/1');
      const screen = coloured(tmux);
      if (wanted) expect(colours(screen), screen).not.toEqual([]);
      else expect(colours(screen), screen).toEqual([]);
    }, TMUX_TEST_TIMEOUT_MS);
  }
});
