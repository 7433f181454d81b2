// A heading: level 1 bold and underlined, 2 bold cyan, deeper ones bold.
import type { Heading as HeadingNode } from 'mdast';
import { WrappedSpans } from '../text/WrappedSpans.tsx';
import { inlineSpans } from './inline-spans.ts';

export function Heading({ node, width }: { node: HeadingNode; width: number }) {
  const color = node.depth === 2 ? 'cyan' : node.depth === 3 ? 'green' : undefined;
  return <WrappedSpans spans={inlineSpans(node.children)} width={width} style={{ bold: true, underline: node.depth === 1, color }} />;
}
