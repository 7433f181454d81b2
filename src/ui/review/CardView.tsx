// The card: its question, and after reveal its answer (or the whole note with `f`).
import { Box, Text } from 'ink';
import { memo, useEffect, type ReactNode } from 'react';
import { LabLine } from '../lab-line.tsx';
import { Markdown } from '../markdown/Markdown.tsx';
import type { ScreenCard } from '../../app/review/screen-contract.ts';
import { preloadLineBreaker } from '../text/line-break.ts';
import { hasOwnTitle, readableWidth } from './card-layout.ts';
import { cardSourceLine, type SourceLine } from './card-source-line.ts';

interface CardViewProps {
  card: ScreenCard;
  revealed: boolean;
  full: boolean;
  width: number;
  /** The latest stored result of the card's lab, shown on the back; null without a lab. */
  labLine?: string | null;
  /** A calc card's typed answer or its verdict, under the question. */
  answerLine?: ReactNode;
}

function SourceLineText({ line }: { line: SourceLine }) {
  return (
    <Text dimColor wrap="truncate-end">
      {line.text}
      {line.lab ? <Text color="magenta">{line.lab}</Text> : null}
    </Text>
  );
}

/** A question line as a heading, unless it is already a block of its own. */
function questionSource(front: string): string {
  return front.includes('\n') || /^\s*#/.test(front) ? front : `# ${front}`;
}

// Memoised: the header's clock re-renders the screen every second; the card need not follow.
export const CardView = memo(function CardView({ card, revealed, full, width, labLine = null, answerLine = null }: CardViewProps) {
  // A note's full text starts with its own title, unless it has none (the file name was the question).
  const fullNote = revealed && full && card.kind === 'note' && hasOwnTitle(card.full);
  const measure = readableWidth(width);
  useEffect(() => preloadLineBreaker(), []);
  return (
    <Box flexDirection="column" width={width}>
      <SourceLineText line={cardSourceLine(card.deck, card.stateName, `${card.path}:${card.line}`, card.lab, width)} />
      {/* A note's full text starts with its own title; a card's body does not. */}
      {fullNote ? null : (
        <Box marginTop={1}>
          <Markdown source={questionSource(card.front)} width={measure} />
        </Box>
      )}
      {answerLine ? <Box marginTop={1}>{answerLine}</Box> : null}
      {revealed ? (
        <Box flexDirection="column" marginTop={1}>
          {fullNote ? null : <Text color="gray">{'─'.repeat(Math.max(1, measure))}</Text>}
          <Markdown source={full ? card.full : card.back} width={measure} />
          {/* Not prose: it may use the whole width, to stay on one row. */}
          <LabLine line={labLine} width={width} />
        </Box>
      ) : null}
    </Box>
  );
});
