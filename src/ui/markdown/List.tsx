// A bulleted, numbered or task list; items hold blocks, so lists nest.
import { Box, Text } from 'ink';
import type { List as ListNode } from 'mdast';
import { Blocks } from './Blocks.tsx';

export function List({ node, width, depth = 0 }: { node: ListNode; width: number; depth?: number }) {
  const start = node.start ?? 1;
  const markers = node.children.map((item, index) => {
    if (item.checked === true) return '[x]';
    if (item.checked === false) return '[ ]';
    if (node.ordered) return `${start + index}.`;
    return depth % 2 === 0 ? '•' : '◦';
  });
  const markerWidth = Math.max(...markers.map((marker) => marker.length)) + 1;
  return (
    <Box flexDirection="column">
      {node.children.map((item, index) => (
        <Box key={index} flexDirection="row">
          <Box width={markerWidth} flexShrink={0}>
            <Text color="gray">{markers[index]}</Text>
          </Box>
          <Box flexDirection="column" flexGrow={1} flexShrink={1}>
            <Blocks nodes={item.children} width={width - markerWidth} tight={!node.spread} listDepth={depth + 1} />
          </Box>
        </Box>
      ))}
    </Box>
  );
}
