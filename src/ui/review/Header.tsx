// The top line: what is done, what is left of each kind, and the time spent. One line at any
// width: on a narrow terminal (a phone's, 40-50 columns) the title goes first, then the labels
// shorten; at 50 columns the full line had wrapped into the card and pushed the screen's top off.
import { Text } from 'ink';
import { TopLine } from '../top-line.tsx';
import type { ScreenCounts } from '../../app/review/screen-contract.ts';

function clock(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const mm = String(Math.floor(seconds / 60) % 60).padStart(2, '0');
  const ss = String(seconds % 60).padStart(2, '0');
  return seconds >= 3600 ? `${Math.floor(seconds / 3600)}:${mm}:${ss}` : `${mm}:${ss}`;
}

interface Layout {
  title: boolean;
  labels: { done: string; new: string; learning: string; review: string };
}

const FULL = { done: 'done', new: 'new', learning: 'learning', review: 'review' };
const SHORT = { done: 'done', new: 'new', learning: 'lrn', review: 'rev' };
const LAYOUTS: Layout[] = [
  { title: true, labels: FULL },
  { title: false, labels: FULL },
  { title: false, labels: SHORT },
];
const TITLE = 'kb review';

/** The widest layout whose line fits `width` with the clock and two spaces before it (the last, cut, where none does). */
function headerLayout(counts: ScreenCounts, clockText: string, width: number): Layout {
  const length = ({ title, labels }: Layout) =>
    (title ? TITLE.length + 2 : 0) +
    [`${labels.done} ${counts.done}`, `${labels.new} ${counts.new}`, `${labels.learning} ${counts.learning}`, `${labels.review} ${counts.review}`].join('  ').length +
    2 +
    clockText.length;
  return LAYOUTS.find((layout) => length(layout) <= width) ?? LAYOUTS[LAYOUTS.length - 1];
}

export function Header({ counts, elapsedMs, width }: { counts: ScreenCounts; elapsedMs: number; width: number }) {
  const time = clock(elapsedMs);
  const { title, labels } = headerLayout(counts, time, width);
  return (
    <TopLine
      width={width}
      left={
        <>
          {title ? <Text bold>{TITLE}  </Text> : null}
          <Text dimColor>{`${labels.done} `}</Text>
          <Text>{counts.done}</Text>
          <Text dimColor>{`  ${labels.new} `}</Text>
          <Text color="blue">{counts.new}</Text>
          <Text dimColor>{`  ${labels.learning} `}</Text>
          <Text color="red">{counts.learning}</Text>
          <Text dimColor>{`  ${labels.review} `}</Text>
          <Text color="green">{counts.review}</Text>
        </>
      }
      right={<Text dimColor>{time}</Text>}
    />
  );
}
