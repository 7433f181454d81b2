// A block quote: its blocks behind a grey bar on the left.
import { Box } from 'ink';
import type { Blockquote } from 'mdast';
import { Blocks } from './Blocks.tsx';

export function BlockQuote({ node, width }: { node: Blockquote; width: number }) {
  return (
    <Box
      borderStyle="bold"
      borderColor="gray"
      borderTop={false}
      borderRight={false}
      borderBottom={false}
      paddingLeft={1}
      flexDirection="column"
    >
      <Blocks nodes={node.children} width={width - 2} />
    </Box>
  );
}
