// The end of a session: how many cards, how many forgotten, how long, and tomorrow's load.
import { Box, Text } from 'ink';
import { durationLabel } from '../../srs/interval-label.ts';
import type { SessionSummary } from '../../app/review/screen-contract.ts';

export function SummaryView({ summary, waitingUntil }: { summary: SessionSummary; waitingUntil: number | null }) {
  const againRate = summary.cards === 0 ? 0 : Math.round((summary.again / summary.cards) * 100);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="green" paddingX={1}>
      <Text bold color="green">
        {waitingUntil === null ? 'Done for today.' : 'Nothing else due right now.'}
      </Text>
      <Text>{`Cards reviewed: ${summary.cards}   Again: ${againRate}% (${summary.again})   Time: ${durationLabel(summary.elapsedMs)}`}</Text>
      <Text>{`Tomorrow: ${summary.tomorrow} card${summary.tomorrow === 1 ? '' : 's'} due`}</Text>
      {waitingUntil !== null ? (
        <Text color="yellow">{`A learning card comes back at ${new Date(waitingUntil).toLocaleTimeString()}: wait here, or quit and review it later.`}</Text>
      ) : null}
      <Text dimColor>u undo · q quit</Text>
    </Box>
  );
}
