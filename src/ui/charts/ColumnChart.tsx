// A vertical bar chart (the due forecast): one column per value, the scale on the left,
// labels under chosen columns.
import { Box, Text } from 'ink';
import { columnLines } from './chart-text.ts';

interface ColumnChartProps {
  values: readonly number[];
  height: number;
  columnWidth: number;
  /** Text under the axis, e.g. today, +7, +14. */
  axis: string;
}

export function ColumnChart({ values, height, columnWidth, axis }: ColumnChartProps) {
  const max = Math.max(0, ...values);
  const scale = String(max).length;
  return (
    <Box flexDirection="column">
      {columnLines(values, height, columnWidth).map((line, row) => (
        <Text key={row}>
          {/* All zeros: the scale is its "0" alone, not "0" at the top as well. */}
          <Text dimColor>{`${row === 0 && max > 0 ? String(max).padStart(scale) : row === height - 1 ? '0'.padStart(scale) : ' '.repeat(scale)} │`}</Text>
          <Text color="cyan">{line}</Text>
        </Text>
      ))}
      <Text dimColor>{`${' '.repeat(scale)} └${'─'.repeat(values.length * columnWidth)}`}</Text>
      <Text dimColor>{`${' '.repeat(scale + 2)}${axis}`}</Text>
    </Box>
  );
}
