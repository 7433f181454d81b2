// truncateToWidth, which cuts every question of kb cards and kb due to its column: a line that
// fits is kept whole; one that does not keeps the most whole graphemes that fit beside a "…".
// Printable ASCII and graphemes already measured take a shortcut (string-width's work on every
// grapheme of every cut question was half of kb cards on 5,000 cards): the cut must be the one
// string-width gives, for any mix of scripts.
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { truncateToWidth } from '../../src/ui/text/truncate.ts';

/** The cut measured grapheme by grapheme with string-width alone. */
function reference(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (stringWidth(line) <= width) return line;
  let out = '';
  for (const { segment } of new Intl.Segmenter().segment(line)) {
    if (stringWidth(out + segment) > width - 1) break;
    out += segment;
  }
  return `${out}…`;
}

const pieces = ['a', 'Q', ' ', '~', '1', '调', '度', '（', '）', '，', 'ｍ', '🚀', '👩‍💻', 'é', 'e\u0301', '\u200b', '한', '\t', '\n', 'ｶ'];

describe('truncateToWidth', () => {
  it('cuts as string-width measures, for ASCII, Chinese, emoji and combining marks', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 60 }), fc.integer({ min: 0, max: 50 }), (parts, width) => {
        const text = parts.join('');
        const cut = truncateToWidth(text, width);
        expect(cut).toBe(reference(text, width));
        // Twice: the second time from the widths kept of the first.
        expect(truncateToWidth(text, width)).toBe(cut);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a line that fits, and cuts an ASCII one to its width with the "…"', () => {
    expect(truncateToWidth('What is TTFT?', 13)).toBe('What is TTFT?');
    expect(truncateToWidth('What is TTFT?', 12)).toBe('What is TTF…');
    expect(truncateToWidth('What  is\nTTFT?', 8)).toBe('What is…');
    expect(truncateToWidth('什么是首字延迟', 7)).toBe('什么是…');
    expect(truncateToWidth('abc', 0)).toBe('…');
  });
});
