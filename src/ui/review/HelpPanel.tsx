// The key list `?` shows.
import { Box, Text } from 'ink';

const ANY_KEY = 'any key';
/** The hide row of a list taller than the screen, where the scroll keys scroll it instead. */
const ANY_OTHER_KEY: [string, string] = ['any other key', 'hide this help (j k, arrows, PgUp PgDn scroll it)'];

// Each description fits one row of an 80-column terminal beside the widest key (51 columns),
// each a whole sentence: the calc row, cut to fit, ended on a bare "Enter".
const KEYS: Array<[string, string]> = [
  ['Space, Enter', 'show the answer; once shown, answer Good'],
  ['1 2 3 4', 'Again, Hard, Good, Easy (each with its interval)'],
  ['0-9 . then Enter', 'calc card: check a typed number (unit optional)'],
  ['f', 'show or hide the whole note (not on deck cards)'],
  ['j k, arrows, PgUp PgDn', 'scroll a long card'],
  ['u', 'undo the last answer, bury or suspend'],
  ['b', 'bury: hide the card until tomorrow'],
  ['s', 'suspend: leave it out until kb unsuspend ID'],
  ['e', "edit in $EDITOR at the card's line, then reload it"],
  ['l', "run the card's lab here (Esc stops it)"],
  [ANY_KEY, 'hide this help'],
  ['q, Esc, Ctrl-C', 'quit (every answer is already saved)'],
  ['Ctrl-Z', 'back to the shell; fg returns here'],
];

/**
 * `editable` false (the read-only bundled knowledge base): e is left out. `scrolls`: the list is
 * taller than the screen, so its hide row says the scroll keys scroll it.
 */
export function HelpPanel({ editable = true, width = 80, scrolls = false }: { editable?: boolean; width?: number; scrolls?: boolean }) {
  const keys = (editable ? KEYS : KEYS.filter(([key]) => key !== 'e')).map((row) => (scrolls && row[0] === ANY_KEY ? ANY_OTHER_KEY : row));
  const keyWidth = Math.max(...keys.map(([key]) => key.length)) + 2;
  // Where a description beside its key would wrap into a narrow column (a phone's terminal), it goes under the key.
  const stacked = keyWidth + Math.max(...keys.map(([, what]) => what.length)) + 4 > width;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="gray" paddingX={1}>
      <Text bold>Keys</Text>
      {keys.map(([keys, what]) => (
        <Box key={keys} flexDirection={stacked ? 'column' : 'row'}>
          <Box width={stacked ? undefined : keyWidth} flexShrink={0}>
            <Text color="cyan">{keys}</Text>
          </Box>
          <Box marginLeft={stacked ? 2 : 0}>
            <Text>{what}</Text>
          </Box>
        </Box>
      ))}
    </Box>
  );
}
