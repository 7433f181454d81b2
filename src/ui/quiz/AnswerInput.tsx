// The answer line of a calc card: what has been typed so far, a block cursor, and the unit
// the card expects; and how keys edit it. A terminal may deliver several keys in one chunk
// (fast typing, paste, tmux send-keys): "40ms\r" is four characters and then Enter.
import { Text } from 'ink';

export function QuizInput({ value, unit }: { value: string; unit: string | null }) {
  return (
    <Text>
      <Text bold>{unit ? `Answer (${unit}): ` : 'Answer: '}</Text>
      <Text>{value}</Text>
      <Text inverse> </Text>
    </Text>
  );
}

export interface LineKey {
  return: boolean;
  backspace: boolean;
  delete: boolean;
  ctrl: boolean;
  meta: boolean;
  tab: boolean;
}

/** The line after a keypress (or a chunk of them), and whether Enter ended it. */
export function editLine(line: string, input: string, key: LineKey): { line: string; submit: boolean } {
  if (key.return) return { line, submit: true };
  if (key.backspace || key.delete) return { line: line.slice(0, -1), submit: false };
  if (key.ctrl || key.meta || key.tab) return { line, submit: false };
  let text = line;
  for (const char of input) {
    if (char === '\r' || char === '\n') return { line: text, submit: true };
    if (char === '\x7f' || char === '\b') text = text.slice(0, -1);
    else if (char >= ' ') text += char;
  }
  return { line: text, submit: false };
}
