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

  it('never leaves a Chinese deck as a lone "…": two cells of room hold no character beside it (found as a user in a terminal 74 columns wide)', () => {
    const location = 'notes/调度/批处理/在大规模部署推理服务时-如何根据首字延迟.md:1';
    for (let width = 60; width <= 90; width++) {
      const { text } = cardSourceLine('调度/批处理', 'new', location, null, width);
      expect(text, `${width} columns`).not.toMatch(/^… · /);
      expect(stringWidth(text), `${width} columns`).toBeLessThanOrEqual(width);
    }
    expect(cardSourceLine('调度/批处理', 'new', location, null, 73).text).toBe(`new · ${location}`);
    expect(cardSourceLine('调度/批处理', 'new', location, null, 74).text).toBe(`调… · new · ${location}`);
  });

  it('measures Chinese decks in cells', () => {
    const { text } = cardSourceLine('推理系统与显存带宽的关系', 'new', 'notes/推理/显存带宽.md:1', null, 40);
    expect(stringWidth(text)).toBeLessThanOrEqual(40);
    expect(text.endsWith(' · new · notes/推理/显存带宽.md:1')).toBe(true);
  });
});
