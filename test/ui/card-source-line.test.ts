// kb review's source line: the deck gives way before the lab and the path (Ink's
// truncate-middle cut the middle out of it, the path's start with it; found as a user on
// kb quiz's line, which kb review's repeated).
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { cardSourceLine } from '../../src/ui/review/card-source-line.ts';

const PATH = 'notes/prefill-decode/arithmetic-intensity-roofline.md:1';

describe("kb review's source line", () => {
  it('is whole where it fits, the lab beside it', () => {
    expect(cardSourceLine('prefill-decode', 'new', PATH, 'ttft-breakdown', 120)).toEqual({ text: `prefill-decode · new · ${PATH}`, lab: '  lab: ttft-breakdown' });
  });

  it('shortens the deck first, then drops it, then the lab; the path stays whole while it fits', () => {
    const line = (width: number) => cardSourceLine('a-long-deck-name-for-decode', 'review', PATH, 'ttft-breakdown', width);
    expect(line(100)).toEqual({ text: `a-long-deck… · review · ${PATH}`, lab: '  lab: ttft-breakdown' });
    // No room for the lab beside even a shortened deck: the lab goes, a shortened deck stays.
    expect(line(80)).toEqual({ text: expect.stringMatching(new RegExp(`^a-long-deck.*… · review · ${PATH.replace(/[.]/g, '\\.')}$`)), lab: '' });
    for (let width = 20; width <= 120; width++) {
      const { text, lab } = line(width);
      expect(stringWidth(text + lab), `${width} columns`).toBeLessThanOrEqual(width);
      if (width >= stringWidth(`review · ${PATH}`)) expect(text.endsWith(PATH), `${width} columns`).toBe(true);
      if (text.includes(' · ')) expect(text).not.toMatch(/…(?! · )/);
    }
  });

  it('measures Chinese decks in cells', () => {
    const { text } = cardSourceLine('推理系统与显存带宽的关系', 'new', 'notes/推理/显存带宽.md:1', null, 40);
    expect(stringWidth(text)).toBeLessThanOrEqual(40);
    expect(text.endsWith(' · new · notes/推理/显存带宽.md:1')).toBe(true);
  });
});
