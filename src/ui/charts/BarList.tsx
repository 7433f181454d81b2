// Labelled horizontal bars, one per line, the value after the bar.
import { Box, Text } from 'ink';
import stringWidth from 'string-width';
import { horizontalBar } from './chart-text.ts';

export interface BarItem {
  label: string;
  value: number;
  /** Shown after the bar instead of the value. */
  text?: string;
}

export function BarList({ items, width, color = 'cyan' }: { items: readonly BarItem[]; width: number; color?: string }) {
  const labelWidth = Math.max(0, ...items.map((item) => stringWidth(item.label)));
  const max = Math.max(0, ...items.map((item) => item.value));
  const barWidth = Math.max(5, width - labelWidth - 12);
  return (
    <Box flexDirection="column">
      {items.map((item) => (
        <Text key={item.label}>
          <Text dimColor>{`${item.label}${' '.repeat(labelWidth - stringWidth(item.label))} │`}</Text>
          <Text color={color}>{horizontalBar(item.value, max, barWidth)}</Text>
          <Text>{` ${item.text ?? item.value}`}</Text>
        </Text>
      ))}
    </Box>
  );
}
