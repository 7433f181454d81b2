import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import type { Root } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import { headingContentRange, parseMarkdownBlocks } from '../../src/kb/markdown.ts';

// kb reads the top-level blocks of a body with markdown-it (block-tree.ts), the UI renders it
// with remark: both must see the same blocks where kb cuts a card out of a note. Compared per
// top-level block: type, start, depth, fence language, heading text range, and the end and
// text up to trailing spaces and blank lines (which no card keeps: every slice is trimmed).
// A link reference definition (`[ref]: url`) is left out of remark's list (markdown-it drops
// it) and is followed by a blank line in the generated text: markdown-it ends the definition
// at its line, CommonMark lets the next line continue it as a paragraph. Indented code right
// after a block quote's line is not generated: micromark splits it into one block per line
// (commonmark.js and markdown-it keep one), a difference inside a block no card cuts.
const full = unified().use(remarkParse).use(remarkGfm);

/** Every top-level block with its type, range, depth, language, text and heading text range. */
function blocks(root: Root, source: string): unknown[] {
  const trimmedEnd = (offset: number | undefined) => source.slice(0, offset).trimEnd().length;
  return root.children.filter((child) => child.type !== 'definition').map((child) => [
    child.type,
    child.position?.start.offset,
    trimmedEnd(child.position?.end.offset),
    'depth' in child ? child.depth : null,
    'lang' in child ? child.lang : null,
    'meta' in child ? child.meta : null,
    child.type === 'code' || child.type === 'html' ? child.value.trimEnd() : null,
    child.type === 'heading' ? headingContentRange(child) : null,
  ]);
}

describe('parseMarkdownBlocks', () => {
  it('gives the top-level blocks and positions remark-gfm gives (seed documents)', () => {
    const dir = '/work/shared/seeds';
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.txt'));
    } catch {
      return; // the seeds are not part of the repository
    }
    for (const file of files) {
      const text = readFileSync(`${dir}/${file}`, 'utf8');
      expect(blocks(parseMarkdownBlocks(text), text), file).toEqual(blocks(full.parse(text), text));
    }
  });

  it('gives the top-level blocks and positions remark-gfm gives (generated Markdown, LF, CRLF and CR)', () => {
    const piece = fc.constantFrom(
      '# H1', '## **Answer** `x`', '## Title ##', '#   spaced   #  ', '## [link](x) *e*', 'text with *emph* and `code` and [link](u)', '', '```', '```python', '~~~', '    indented', '- item', '1. item',
      '> quote', '> # quoted heading', '| a | b |', '|---|---|', '| 1 | 2 |', '<!-- kb:id=x -->', '<div>', '---', '***', 'Setext', '===',
      '[^1]: note', '[ref]: http://x', '  - nested `a` **b**', '\\# not a heading', '`` ` ``', '<span>*x*</span>', 'a\\', 'trailing  ',
      '# 　全角', '## 答案 #', '\t# tab', '   ## three', '    # four', '```kb-calc', '~~~ kb-calc meta', '### ###', '# foo#', '#', '## ', '\t', '  ', '<!--', '-->', '</div>',
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 30 }), fc.constantFrom('\n', '\r\n', '\r'), (lines, eol) => {
      const text = lines.map((line) => (line.startsWith('[ref]') ? line + eol : line)).join(eol);
      fc.pre(!/^>.*(?:\r\n?|\n)(?: {4}|\t)/m.test(text));
      expect(blocks(parseMarkdownBlocks(text), text)).toEqual(blocks(full.parse(text), text));
    }), { numRuns: 1000 });
  });
});
