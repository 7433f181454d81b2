// Under a revealed answer (kb review and kb quiz alike): the card's lab and its latest stored
// result, with the key that runs it.
import { Box, Text } from 'ink';

export function LabLine({ line }: { line: string | null }) {
  if (!line) return null;
  return (
    <Box marginTop={1}>
      <Text color="magenta">{`Lab: ${line}`}</Text>
      <Text dimColor>{'  (l runs it)'}</Text>
    </Box>
  );
}
