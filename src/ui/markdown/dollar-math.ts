// remark-math reads any two dollar signs on a line as a formula, so prose with prices
// ("$0.06/s saved ($5,184/day)") would turn into math. Pandoc's rule tells them apart, and
// this transform applies it to each single-dollar formula: the opening $ is followed by a
// non-space, the closing $ follows a non-space and is not followed by a digit. A formula that
// fails goes back to being the text it was written as.
import type { Root } from 'mdast';
import type {} from 'mdast-util-math';
import { visit } from 'unist-util-visit';

export function isPandocInlineMath(source: string, start: number, end: number): boolean {
  const raw = source.slice(start, end);
  if (raw.startsWith('$$')) return true;
  return /^\$\S/.test(raw) && /\S\$$/.test(raw) && !/\d/.test(source[end] ?? '');
}

export function remarkDollarProse() {
  return (tree: Root, file: { value?: unknown }) => {
    const source = String(file.value ?? '');
    visit(tree, 'inlineMath', (node, index, parent) => {
      const start = node.position?.start.offset;
      const end = node.position?.end.offset;
      if (!parent || index === undefined || start === undefined || end === undefined) return;
      if (isPandocInlineMath(source, start, end)) return;
      parent.children.splice(index, 1, { type: 'text', value: source.slice(start, end) });
    });
  };
}
