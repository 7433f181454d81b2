// A screen's top line (kb review, kb quiz): what it counts, cut at the terminal's edge rather
// than wrapped (a wrapped top line pushed the screen's first row off a narrow terminal), and a
// clock or countdown kept whole two cells after it.
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';

export function TopLine({ width, left, right }: { width: number; left: ReactNode; right: ReactNode }) {
  return (
    <Box width={width} justifyContent="space-between">
      <Box flexShrink={1}>
        <Text wrap="truncate-end">{left}</Text>
      </Box>
      <Box flexShrink={0} marginLeft={2}>
        {right}
      </Box>
    </Box>
  );
}
