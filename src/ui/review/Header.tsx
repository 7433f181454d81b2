// The top line: what is done, what is left of each kind, and the time spent.
import { Box, Text } from 'ink';
import type { ScreenCounts } from '../../app/review/screen-contract.ts';

function clock(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const mm = String(Math.floor(seconds / 60) % 60).padStart(2, '0');
  const ss = String(seconds % 60).padStart(2, '0');
  return seconds >= 3600 ? `${Math.floor(seconds / 3600)}:${mm}:${ss}` : `${mm}:${ss}`;
}

export function Header({ counts, elapsedMs, width }: { counts: ScreenCounts; elapsedMs: number; width: number }) {
  return (
    <Box width={width} justifyContent="space-between">
      <Text>
        <Text bold>kb review</Text>
        <Text dimColor>{'  done '}</Text>
        <Text>{counts.done}</Text>
        <Text dimColor>{'  new '}</Text>
        <Text color="blue">{counts.new}</Text>
        <Text dimColor>{'  learning '}</Text>
        <Text color="red">{counts.learning}</Text>
        <Text dimColor>{'  review '}</Text>
        <Text color="green">{counts.review}</Text>
      </Text>
      <Text dimColor>{clock(elapsedMs)}</Text>
    </Box>
  );
}
