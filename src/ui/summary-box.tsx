// The box that ends a kb review or kb quiz session: a title, a tally of figures, then lines of
// its own. As wide as its lines (a 200-column terminal drew a 200-column box around them); the
// tally breaks between its figures on a narrow terminal, never inside one.
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { packParts } from './text/pack-parts.ts';

/** The border and padding on each side of the box's lines. */
export const FRAME_COLUMNS = 4;

export function SummaryBox({ title, color, tally, width, children }: { title: string; color: string; tally: string[]; width: number; children: ReactNode }) {
  return (
    <Box flexDirection="column" alignSelf="flex-start" borderStyle="round" borderColor={color} paddingX={1}>
      <Text bold color={color}>
        {title}
      </Text>
      <Text>{packParts(tally, '   ', width - FRAME_COLUMNS).join('\n')}</Text>
      {children}
    </Box>
  );
}
