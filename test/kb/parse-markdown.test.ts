import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import type { Nodes, Root } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import { headingContentRange, parseMarkdownBlocks } from '../../src/kb/markdown.ts';

// kb parses Markdown with the inline constructs switched off; CommonMark builds blocks before
// inlines, so every block and its position must match a full parse.
const full = unified().use(remarkParse).use(remarkGfm);

const CONTAINERS = new Set(['root', 'blockquote', 'list', 'listItem', 'footnoteDefinition', 'table', 'tableRow']);

/** Every block (a child of a container) with its type, depth and source range. */
function blocks(root: Root): unknown[] {
  const out: unknown[] = [];
  const walk = (node: Nodes, depth: number) => {
    if (!CONTAINERS.has(node.type) || !('children' in node)) return;
    for (const child of node.children as Nodes[]) {
      const content = child.type === 'heading' ? headingContentRange(child) : null;
      out.push([depth, child.type, child.position?.start.offset, child.position?.end.offset, 'depth' in child ? child.depth : null, 'lang' in child ? child.lang : null, content]);
      walk(child, depth + 1);
    }
  };
  walk(root, 0);
  return out;
}

describe('parseMarkdownBlocks', () => {
  it('gives the same blocks and positions as a full remark-gfm parse (seed documents)', () => {
    const dir = '/work/shared/seeds';
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.txt'));
    } catch {
      return; // the seeds are not part of the repository
    }
    for (const file of files) {
      const text = readFileSync(`${dir}/${file}`, 'utf8');
      expect(blocks(parseMarkdownBlocks(text)), file).toEqual(blocks(full.parse(text)));
    }
  });

  it('gives the same blocks and positions as a full parse (generated Markdown)', () => {
    const piece = fc.constantFrom(
      '# H1', '## **Answer** `x`', '## Title ##', '#   spaced   #  ', '## [link](x) *e*', 'text with *emph* and `code` and [link](u)', '', '```', '```python', '~~~', '    indented', '- item', '1. item',
      '> quote', '> # quoted heading', '| a | b |', '|---|---|', '| 1 | 2 |', '<!-- kb:id=x -->', '<div>', '---', '***', 'Setext', '===',
      '[^1]: note', '[ref]: http://x', '  - nested `a` **b**', '\\# not a heading', '`` ` ``', '<span>*x*</span>', 'a\\', 'trailing  ',
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 30 }), fc.constantFrom('\n', '\r\n'), (lines, eol) => {
      const text = lines.join(eol);
      expect(blocks(parseMarkdownBlocks(text))).toEqual(blocks(full.parse(text)));
    }), { numRuns: 300 });
  });
});
