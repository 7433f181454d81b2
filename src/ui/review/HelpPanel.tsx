// The key list `?` shows.
import { Box, Text } from 'ink';

// Each description fits one row of an 80-column terminal beside the widest key (52 columns).
const KEYS: Array<[string, string]> = [
  ['Space, Enter', 'show the answer; once shown, answer Good'],
  ['1 2 3 4', 'Again, Hard, Good, Easy (each with its interval)'],
  ['0-9 . then Enter', 'calc card: type a number (unit optional), Enter'],
  ['f', 'show or hide the whole note'],
  ['j k, arrows, PgUp PgDn', 'scroll a long card'],
  ['u', 'undo the last answer, bury or suspend'],
  ['b', 'bury: hide the card until tomorrow'],
  ['s', 'suspend: leave it out until kb unsuspend ID'],
  ['e', 'edit the card in $EDITOR at its line, then reload it'],
  ['l', "run the card's lab here (Esc stops it)"],
  ['?', 'show or hide this help'],
  ['q, Esc, Ctrl-C', 'quit (every answer is already saved)'],
  ['Ctrl-Z', 'back to the shell; fg returns here'],
];

/** `editable` false (the read-only bundled knowledge base): e is left out. */
export function HelpPanel({ editable = true }: { editable?: boolean }) {
  const keys = editable ? KEYS : KEYS.filter(([key]) => key !== 'e');
  const width = Math.max(...keys.map(([key]) => key.length)) + 2;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="gray" paddingX={1}>
      <Text bold>Keys</Text>
      {keys.map(([keys, what]) => (
        <Box key={keys}>
          <Box width={width} flexShrink={0}>
            <Text color="cyan">{keys}</Text>
          </Box>
          <Text>{what}</Text>
        </Box>
      ))}
    </Box>
  );
}
