// kb's help texts are paragraphs reflowed to the terminal (80 columns at most): see help-layout.ts.
import { describe, expect, it } from 'vitest';
import { reflowHelp } from '../../src/cli/help-layout.ts';

describe('reflowHelp', () => {
  it('joins a paragraph broken at any width and wraps it to the width given', () => {
    const text = 'The quick brown fox jumps over the lazy\ndog and keeps on running until the sun goes down';
    const lines = reflowHelp(text, 40).split('\n');
    expect(lines).toEqual(['The quick brown fox jumps over the lazy', 'dog and keeps on running until the sun', 'goes down']);
  });

  it('keeps the break after a sentence, blank lines, and indented lines as written', () => {
    const text = 'First topic ends here.\nSecond topic starts on its own line\nand goes on.\n\nExample:\n  kb review --deck metrics --limit 20 --tag a-very-long-tag-name\nAfter it.';
    expect(reflowHelp(text, 40)).toBe(
      'First topic ends here.\nSecond topic starts on its own line and\ngoes on.\n\nExample:\n  kb review --deck metrics --limit 20 --tag a-very-long-tag-name\nAfter it.',
    );
  });

  it('never parts a number from its unit', () => {
    const text = 'type the number as in kb quiz (20, 20ms, 0.02 s, 2.4 GB) and Enter';
    // Width 46 would end the first line at "0.02" and width 52 at "2.4" if the spaces were plain.
    expect(reflowHelp(text, 46).split('\n')).toEqual(['type the number as in kb quiz (20, 20ms,', '0.02 s, 2.4 GB) and Enter']);
    expect(reflowHelp(text, 52).split('\n')).toEqual(['type the number as in kb quiz (20, 20ms, 0.02 s,', '2.4 GB) and Enter']);
  });

  it('parts a number from a long word after it, which is no unit', () => {
    // Kept whole, "1-4 Again/Hard/Good/Easy" ended kb review's Keys line at 60 columns.
    const text = 'Keys: Space/Enter show the answer, 1-4 Again/Hard/Good/Easy (each with its interval)';
    expect(reflowHelp(text, 40).split('\n')).toEqual(['Keys: Space/Enter show the answer, 1-4', 'Again/Hard/Good/Easy (each with its', 'interval)']);
  });

  it('counts a Chinese character as two columns', () => {
    // Up to "or": 39 characters, 42 columns on a terminal.
    const words = 'abcdefghij abcdefghij abcdefghij';
    expect(reflowHelp(`${words} 什么是 or more`, 40).split('\n')).toEqual([`${words} 什么是`, 'or more']);
    expect(reflowHelp(`${words} abc or more`, 40).split('\n')).toEqual([`${words} abc or`, 'more']);
  });
});
