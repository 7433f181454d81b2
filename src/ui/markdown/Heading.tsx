// A heading: level 1 bold and underlined, 2 bold cyan, deeper ones bold.
import { Text } from 'ink';
import type { Heading as HeadingNode } from 'mdast';
import { Inline } from './Inline.tsx';

export function Heading({ node }: { node: HeadingNode }) {
  const color = node.depth === 2 ? 'cyan' : node.depth === 3 ? 'green' : undefined;
  return (
    <Text bold underline={node.depth === 1} color={color}>
      <Inline nodes={node.children} />
    </Text>
  );
}
