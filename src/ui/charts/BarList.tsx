// Labelled horizontal bars, one per line, the value after the bar. The bars get what the
// labels and the widest value leave of the width, so a full bar and its "100.0% of 3" share
// one line at any width.
import { Box, Text } from 'ink';
import stringWidth from 'string-width';
import { padToWidth, truncateToWidth } from '../text/truncate.ts';
import { horizontalBar } from './chart-text.ts';

export interface BarItem {
  label: string;
  value: number;
  /** Shown after the bar instead of the value. */
  text?: string;
}

export function BarList({ items, width, color = 'cyan' }: { items: readonly BarItem[]; width: number; color?: string }) {
  // A long label (a tag) is cut rather than pushing the bars off the line.
  const labelWidth = Math.min(Math.max(0, ...items.map((item) => stringWidth(item.label))), Math.max(8, Math.floor(width / 3)));
  const values = items.map((item) => ` ${item.text ?? item.value}`);
  const valueWidth = Math.max(0, ...values.map((value) => stringWidth(value)));
  const max = Math.max(0, ...items.map((item) => item.value));
  const barWidth = Math.max(1, width - labelWidth - 2 - valueWidth);
  return (
    <Box flexDirection="column">
      {items.map((item, index) => (
        <Text key={item.label} wrap="truncate-end">
          <Text dimColor>{`${padToWidth(truncateToWidth(item.label, labelWidth), labelWidth)} │`}</Text>
          <Text color={color}>{horizontalBar(item.value, max, barWidth)}</Text>
          <Text>{values[index]}</Text>
        </Text>
      ))}
    </Box>
  );
}
