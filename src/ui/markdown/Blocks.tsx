// A sequence of block nodes, a blank line between them (none inside a tight list).
import { Box, Text } from 'ink';
import type { RootContent } from 'mdast';
import type {} from 'mdast-util-math';
import { toString } from 'mdast-util-to-string';
import { WrappedSpans, WrappedText } from '../text/WrappedSpans.tsx';
import { BlockQuote } from './BlockQuote.tsx';
import { CodeBlock } from './CodeBlock.tsx';
import { Heading } from './Heading.tsx';
import { inlineSpans } from './inline-spans.ts';
import { List } from './List.tsx';
import { Table } from './Table.tsx';
import { texToUnicode } from './tex-to-unicode.ts';

interface BlocksProps {
  nodes: readonly RootContent[];
  width: number;
  tight?: boolean;
  listDepth?: number;
}

export function Blocks({ nodes, width, tight = false, listDepth = 0 }: BlocksProps) {
  const shown = nodes.filter((node) => node.type !== 'definition' && node.type !== 'yaml');
  return (
    <Box flexDirection="column">
      {shown.map((node, index) => (
        <Box key={index} flexDirection="column" marginTop={index > 0 && !tight ? 1 : 0}>
          <Block node={node} width={Math.max(8, width)} listDepth={listDepth} />
        </Box>
      ))}
    </Box>
  );
}

function Block({ node, width, listDepth }: { node: RootContent; width: number; listDepth: number }) {
  switch (node.type) {
    case 'heading':
      return <Heading node={node} width={width} />;
    case 'paragraph':
      return <WrappedSpans spans={inlineSpans(node.children)} width={width} />;
    case 'list':
      return <List node={node} width={width} depth={listDepth} />;
    case 'code':
      return <CodeBlock node={node} />;
    case 'blockquote':
      return <BlockQuote node={node} width={width} />;
    case 'table':
      return <Table node={node} width={width} />;
    case 'thematicBreak':
      return <Text color="gray">{'─'.repeat(Math.max(1, width))}</Text>;
    case 'html':
      return <WrappedText text={node.value} width={width} dimColor />;
    case 'math':
      // A display formula, set off by its indent as it would be by centring on a page.
      return (
        <Box paddingLeft={2}>
          <WrappedText text={texToUnicode(node.value)} width={width - 2} italic />
        </Box>
      );
    default:
      return <WrappedText text={toString(node)} width={width} />;
  }
}
