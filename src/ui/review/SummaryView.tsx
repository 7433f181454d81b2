// The end of a session: how many cards, how many forgotten, how long, and tomorrow's load.
import { Text } from 'ink';
import { durationLabel } from '../../srs/interval-label.ts';
import type { SessionSummary } from '../../app/review/screen-contract.ts';
import { SummaryBox } from '../summary-box.tsx';

export function SummaryView({ summary, waitingUntil, width }: { summary: SessionSummary; waitingUntil: number | null; width: number }) {
  const againRate = summary.cards === 0 ? 0 : Math.round((summary.again / summary.cards) * 100);
  // A --limit run ends with cards still due now: "Done for today." told a `kb review --limit 1`
  // the day was done while 2 new cards waited (the line printed on quitting said "still due").
  const { learning, review, new: fresh } = summary.stillDue;
  const left = ([[learning, 'learning'], [review, 'review'], [fresh, 'new']] as const).filter(([count]) => count > 0).map(([count, kind]) => `${count} ${kind}`);
  const title = waitingUntil !== null ? 'Nothing else due right now.' : left.length > 0 ? 'Done with this run.' : 'Done for today.';
  return (
    <SummaryBox
      title={title}
      color="green"
      tally={[`Cards reviewed: ${summary.cards}`, `Again: ${againRate}% (${summary.again})`, `Time: ${durationLabel(summary.elapsedMs)}`]}
      width={width}
    >
      {left.length > 0 ? <Text>{`Still due now: ${left.join(', ')} (kb review for more)`}</Text> : null}
      {summary.laterToday > 0 ? <Text>{`Later today: ${summary.laterToday} learning card${summary.laterToday === 1 ? '' : 's'}`}</Text> : null}
      <Text>{`Tomorrow: ${summary.tomorrow} card${summary.tomorrow === 1 ? '' : 's'} due`}</Text>
      {waitingUntil !== null ? (
        <Text color="yellow">{`A learning card comes back at ${new Date(waitingUntil).toLocaleTimeString()}: wait here, or quit and review it later.`}</Text>
      ) : null}
      <Text dimColor>u undo · q quit</Text>
    </SummaryBox>
  );
}
