// The bottom line: before reveal, how to reveal; after, the four answers with their intervals.
import { Box, Text } from 'ink';
import stringWidth from 'string-width';
import type { AnswerOption } from '../../app/review/screen-contract.ts';
import { GRADE_LABELS } from '../../model/fsrs-state.ts';

const COLORS = { 1: 'red', 2: 'yellow', 3: 'green', 4: 'blue' } as const;

/**
 * Key hints before the reveal, longest first: the first that fits one line is shown. Space is
 * "answer" in each: "show answer" where it fitted made a deck card's bar (no f) say it one way
 * and a note card's the other at 80 columns.
 */
function hints(lab: boolean, calc: boolean, editable: boolean, note: boolean): string[] {
  const l = lab ? ' · l run lab' : '';
  if (calc) {
    return [
      ` answer · type a number, Enter checks it (20ms, 2.4 GB)${l} · b bury · s suspend · u undo · ? keys · q quit`,
      ` answer · type a number, Enter checks it${l} · ? keys · q quit`,
      ` answer · type a number + Enter · q quit`,
    ];
  }
  // The bundled knowledge base is read-only: e is not offered there.
  const e = editable ? ' · e edit' : '';
  const shortLab = lab ? ' · l lab' : '';
  // A deck card (cards/*.md) has no note behind it: f is not offered there.
  const f = note ? ' · f note' : '';
  // A lab card's hint lost f, b, s and u at 80 columns where a shorter wording kept them.
  return [
    ` answer${f}${l}${e} · b bury · s suspend · u undo · ? keys · q quit`,
    ` answer${f}${shortLab}${e} · b bury · s suspend · u undo · ? keys · q quit`,
    ` answer${f}${shortLab} · b bury · s suspend · u undo · ? keys · q quit`,
    ` answer${shortLab} · ? keys · q quit`,
  ];
}

/**
 * While a calc answer is being typed, every printable key goes into it (Space and q included:
 * "0.5 s", "25 ms"), so the bar before the reveal, "Space answer ... q quit", named two keys that
 * only typed a character. Enter checks, Esc clears (and only then q quits), as kb quiz says.
 */
function typingHints(unit: string | null): string[] {
  const bare = unit ? ` (${unit} if no unit is given)` : '';
  return [
    ` checks it${bare} · Esc clears it, then q quits`,
    ` checks it · Esc clears it, then q quits`,
    ` check · Esc clear`,
  ];
}

/** After the reveal, beside the answers where they leave room. */
const AFTER_REVEAL_HINT = 'u undo · ? keys · q quit';

interface AnswerBarProps {
  revealed: boolean;
  options: AnswerOption[];
  width: number;
  lab?: boolean;
  /** A calc card: its answer is typed. */
  calc?: boolean;
  /** Offer e (edit): false on the read-only bundled knowledge base. */
  editable?: boolean;
  /** Offer f (the whole note): false on a deck card, which has none. */
  note?: boolean;
  /** The grade a checked answer suggests (Space and Enter give it); by default Space means Good. */
  suggested?: AnswerOption['grade'] | null;
  /** A calc card with a number being typed (not yet checked): the keys are the input's. */
  typing?: boolean;
  /** The calc card's unit, for the typing hint. */
  unit?: string | null;
}

export function AnswerBar({ revealed, options, width, lab = false, calc = false, editable = true, note = true, suggested = null, typing = false, unit = null }: AnswerBarProps) {
  if (!revealed) {
    const key = calc && typing ? 'Enter' : 'Space';
    const all = calc && typing ? typingHints(unit) : hints(lab, calc, editable, note);
    const hint = all.find((text) => key.length + stringWidth(text) <= width) ?? all[all.length - 1];
    return (
      <Text>
        <Text bold>{key}</Text>
        <Text dimColor>{hint}</Text>
      </Text>
    );
  }
  const GAP = 3;
  const answersWidth = options.reduce((sum, option) => sum + `${option.grade} ${option.name} ${option.label}`.length + (option.grade === suggested ? ' ← Space'.length : 0) + GAP, 0);
  const withHint = answersWidth + AFTER_REVEAL_HINT.length <= width;
  return (
    <Box flexWrap="wrap" columnGap={GAP}>
      {options.map((option) => (
        <Text key={option.grade}>
          <Text bold color={COLORS[option.grade]}>{`${option.grade} ${GRADE_LABELS[option.grade]}`}</Text>
          <Text>{` ${option.label}`}</Text>
          {option.grade === suggested ? <Text dimColor>{' ← Space'}</Text> : null}
        </Text>
      ))}
      {withHint ? <Text dimColor>{AFTER_REVEAL_HINT}</Text> : null}
    </Box>
  );
}
