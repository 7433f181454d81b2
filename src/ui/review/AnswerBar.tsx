// The bottom line: before reveal, how to reveal; after, the four answers with their intervals.
import { Box, Text } from 'ink';
import type { AnswerOption } from '../../srs/review-controller.ts';

const COLORS = { 1: 'red', 2: 'yellow', 3: 'green', 4: 'blue' } as const;

/** Key hints before the reveal, longest first: the first that fits one line is shown. */
function hints(lab: boolean, editable: boolean): string[] {
  const l = lab ? ' · l run lab' : '';
  // The bundled knowledge base is read-only: e is not offered there.
  const e = editable ? ' · e edit' : '';
  return [
    ` show answer · f note${l}${e} · b bury · s suspend · u undo · ? keys · q quit`,
    ` answer · f note${l}${e} · b bury · s suspend · u undo · ? keys · q quit`,
    ` answer${lab ? ' · l lab' : ''} · ? keys · q quit`,
  ];
}

export function AnswerBar({ revealed, options, width, lab = false, editable = true }: { revealed: boolean; options: AnswerOption[]; width: number; lab?: boolean; editable?: boolean }) {
  if (!revealed) {
    const all = hints(lab, editable);
    const hint = all.find((text) => 'Space'.length + text.length <= width) ?? all[all.length - 1];
    return (
      <Text>
        <Text bold>Space</Text>
        <Text dimColor>{hint}</Text>
      </Text>
    );
  }
  return (
    <Box flexWrap="wrap" columnGap={3}>
      {options.map((option) => (
        <Text key={option.grade}>
          <Text bold color={COLORS[option.grade]}>{`${option.grade} ${option.name[0].toUpperCase()}${option.name.slice(1)}`}</Text>
          <Text>{` ${option.label}`}</Text>
        </Text>
      ))}
    </Box>
  );
}
