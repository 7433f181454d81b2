// The end of a session: how many cards, how many forgotten, how long, and tomorrow's load.
import { Text } from 'ink';
import { durationLabel } from '../../srs/interval-label.ts';
import type { SessionSummary } from '../../app/review/screen-contract.ts';
import { SummaryBox } from '../summary-box.tsx';

export function SummaryView({ summary, waitingUntil, width }: { summary: SessionSummary; waitingUntil: number | null; width: number }) {
  const againRate = summary.cards === 0 ? 0 : Math.round((summary.again / summary.cards) * 100);
  return (
    <SummaryBox
      title={waitingUntil === null ? 'Done for today.' : 'Nothing else due right now.'}
      color="green"
      tally={[`Cards reviewed: ${summary.cards}`, `Again: ${againRate}% (${summary.again})`, `Time: ${durationLabel(summary.elapsedMs)}`]}
      width={width}
    >
      {summary.laterToday > 0 ? <Text>{`Later today: ${summary.laterToday} learning card${summary.laterToday === 1 ? '' : 's'}`}</Text> : null}
      <Text>{`Tomorrow: ${summary.tomorrow} card${summary.tomorrow === 1 ? '' : 's'} due`}</Text>
      {waitingUntil !== null ? (
        <Text color="yellow">{`A learning card comes back at ${new Date(waitingUntil).toLocaleTimeString()}: wait here, or quit and review it later.`}</Text>
      ) : null}
      <Text dimColor>u undo · q quit</Text>
    </SummaryBox>
  );
}
