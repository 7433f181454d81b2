// Writing a note's id without parsing the note again (issue #13, item 21): insertMissingIds
// trusts ParsedFrontmatter.appendsCleanly. Whatever YAML the frontmatter holds, the note it
// writes must parse back to the same card with the new id and the same frontmatter plus `id`.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insertMissingIds } from '../../src/kb/id-insert.ts';
import { parseFrontmatter } from '../../src/kb/frontmatter.ts';
import { parseLocated } from '../../src/kb/parse-file.ts';

/** Frontmatter lines of many YAML shapes, `K` standing for a key made unique per note. */
const fragments = [
  'K: plain',
  "K: 'single quoted'",
  'K: "double quoted\n  and continued"',
  'K: plain\n  continued on the next line',
  'K: |\n  literal\n  block',
  'K: |+\n  kept\n\n',
  'K: |-\n  stripped',
  'K: >\n  folded\n  block',
  'K: [a, b]',
  'K: [a,\n  b]',
  'K: {a: 1, b: two}',
  'K:\n- a\n- b',
  'K:\n  - a\n  - b',
  'K:\n  sub: 1\n  deeper:\n    x: y',
  'K:\n  sub: |\n    nested literal',
  'K:',
  'K: 2025-10-19',
  'K: 0.5',
  'K: null',
  'K: plain # a comment',
  '# a comment line',
  '',
  '  # an indented comment',
  '...',
  ' K: indented',
  'K: !!str 5',
];

const frontmatterLines = fc.array(fc.constantFrom(...fragments), { maxLength: 6 }).map((lines) => lines.map((line, i) => line.replace(/K/g, `k${i}`)));

/** A note with these frontmatter lines, CRLF or LF line ends, a plain or a calc card. */
function noteText(lines: string[], crlf: boolean, calc: boolean): string {
  const body = calc ? '# Q\n\nA\n\n```kb-calc\nx = 2\nanswer: x * 3\n```\n' : '# Q\n\nA\n';
  return `---\n${lines.join('\n')}\n---\n${body}`.replace(/\n/g, crlf ? '\r\n' : '\n');
}

const notes = fc.tuple(frontmatterLines, fc.boolean(), fc.boolean());

describe('insertMissingIds: appending a note id without a second parse', () => {
  it('property: the written note parses to the same card and frontmatter, plus the id', () => {
    fc.assert(
      fc.property(notes, ([lines, crlf, calc]) => {
        const text = noteText(lines, crlf, calc);
        const first = parseLocated('notes/a.md', text);
        if (first.parsed.cards.length !== 1) return;
        let result: ReturnType<typeof insertMissingIds>;
        try {
          result = insertMissingIds(text, first, () => 'abcdef234567');
        } catch (error) {
          // The full check may refuse a frontmatter it cannot extend safely; the shortcut never does.
          expect(first.appendsCleanly).not.toBe(true);
          expect(String(error)).toMatch(/could not write id|would change the cards/);
          return;
        }
        const again = parseLocated('notes/a.md', result.text);
        expect(again.parsed.cards).toEqual(result.parsed.cards);
        expect(again.parsed.cards[0]).toEqual({ ...first.parsed.cards[0], id: 'abcdef234567', idLine: again.parsed.cards[0].idLine, calc: again.parsed.cards[0].calc });
        expect(again.frontmatter).toEqual({ ...first.frontmatter, id: 'abcdef234567' });
      }),
      { numRuns: 400 },
    );
    // The property is about the shortcut: most generated notes must take it. Counted on a
    // fixed sample: over random runs the count swings (109 to 158 of 400 over 200 seeds; a
    // run of the suite once saw 97).
    const appended = fc.sample(notes, { numRuns: 400, seed: 13 }).filter(([lines, crlf, calc]) => {
      const parsed = parseLocated('notes/a.md', noteText(lines, crlf, calc));
      return parsed.parsed.cards.length === 1 && parsed.appendsCleanly;
    }).length;
    expect(appended).toBeGreaterThan(100);
  });

  it('leaves block scalars, indented and flow mappings and a document end to the full check', () => {
    const cleanly = (yaml: string) => parseFrontmatter('notes/a.md', `---\n${yaml}\n---\n# Q\n`).appendsCleanly;
    expect(cleanly('a: 1\nb: [x,\n  y]')).toBe(true);
    expect(cleanly('a: |+\n  kept\n')).toBe(false);
    expect(cleanly('a:\n  b: >\n    folded')).toBe(false);
    expect(cleanly(' a: 1\n b: 2')).toBe(false);
    expect(cleanly('{a: 1}')).toBe(false);
    expect(cleanly('a: 1\n...')).toBe(false);
  });
});
