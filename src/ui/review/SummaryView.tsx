// The end of a session: how many cards, how many forgotten, how long, and tomorrow's load.
import { Box, Text } from 'ink';
import { durationLabel } from '../../srs/interval-label.ts';
import type { SessionSummary } from '../../app/review/screen-contract.ts';
import { packParts } from '../text/pack-parts.ts';

/** The border and padding on each side of the box's lines. */
const FRAME_COLUMNS = 4;

export function SummaryView({ summary, waitingUntil, width }: { summary: SessionSummary; waitingUntil: number | null; width: number }) {
  const againRate = summary.cards === 0 ? 0 : Math.round((summary.again / summary.cards) * 100);
  // Broken between its figures on a narrow terminal, never inside one.
  const tally = packParts([`Cards reviewed: ${summary.cards}`, `Again: ${againRate}% (${summary.again})`, `Time: ${durationLabel(summary.elapsedMs)}`], '   ', width - FRAME_COLUMNS);
  return (
    // As wide as its lines (a 200-column terminal drew a 200-column box around them).
    <Box flexDirection="column" alignSelf="flex-start" borderStyle="round" borderColor="green" paddingX={1}>
      <Text bold color="green">
        {waitingUntil === null ? 'Done for today.' : 'Nothing else due right now.'}
      </Text>
      <Text>{tally.join('\n')}</Text>
      <Text>{`Tomorrow: ${summary.tomorrow} card${summary.tomorrow === 1 ? '' : 's'} due`}</Text>
      {waitingUntil !== null ? (
        <Text color="yellow">{`A learning card comes back at ${new Date(waitingUntil).toLocaleTimeString()}: wait here, or quit and review it later.`}</Text>
      ) : null}
      <Text dimColor>u undo · q quit</Text>
    </Box>
  );
}
