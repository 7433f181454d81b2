// A fenced code block in a rounded frame as wide as its longest line, its language as the label on top.
import { Box, Text } from 'ink';
import type { Code } from 'mdast';

export function CodeBlock({ node }: { node: Code }) {
  return (
    <Box flexDirection="column">
      {node.lang ? <Text dimColor>{` ${node.lang}`}</Text> : null}
      <Box borderStyle="round" borderColor="gray" paddingX={1} flexDirection="column" alignSelf="flex-start">
        <Text color="yellow">{node.value === '' ? ' ' : node.value}</Text>
      </Box>
    </Box>
  );
}
