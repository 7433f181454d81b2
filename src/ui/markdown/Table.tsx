// A GitHub table drawn with box characters, its columns fitted to the width.
import { Box, Text } from 'ink';
import type { Table as TableNode } from 'mdast';
import { inlineSpans } from './inline-spans.ts';
import { layoutTable } from './table-layout.ts';

export function Table({ node, width }: { node: TableNode; width: number }) {
  const rows = node.children.map((row) => row.children.map((cell) => inlineSpans(cell.children).map((span) => span.text).join('')));
  const lines = layoutTable(rows, node.align ?? [], width);
  return (
    <Box flexDirection="column">
      <Text color="gray">{lines.top}</Text>
      {lines.header.map((line, index) => (
        <Text key={`h${index}`} bold>
          {line}
        </Text>
      ))}
      <Text color="gray">{lines.separator}</Text>
      {lines.body.flat().map((line, index) => (
        <Text key={`b${index}`}>{line}</Text>
      ))}
      <Text color="gray">{lines.bottom}</Text>
    </Box>
  );
}
