// Under a revealed answer (kb review and kb quiz alike): the card's lab and its latest stored
// result, with the key that runs it. Too long for the width, it breaks between its parts
// (lab · verdict · age · figure), never inside one.
import { Box, Text } from 'ink';
import stringWidth from 'string-width';
import { packParts } from './text/pack-parts.ts';
import { isMissingLabLine } from '../app/card-labs/card-labs.ts';

const SEPARATOR = ' · ';
const HINT = '(l runs it)';

export function LabLine({ line, width }: { line: string | null; width: number }) {
  if (!line) return null;
  const rows = packParts([`Lab: ${line.split(SEPARATOR)[0]}`, ...line.split(SEPARATOR).slice(1)], SEPARATOR, width);
  // The key hint follows the last part, on its own row when it does not fit there.
  const last = rows.at(-1) ?? '';
  // No key to name for a lab that is nowhere.
  const hint = isMissingLabLine(line) ? null : HINT;
  const hintOnLast = hint === null || stringWidth(last) + 2 + hint.length <= width;
  return (
    <Box marginTop={1} flexDirection="column">
      {rows.map((row, index) => (
        <Text key={index} wrap="truncate-end">
          <Text color="magenta">{row}</Text>
          {index === rows.length - 1 && hint !== null && hintOnLast ? <Text dimColor>{`  ${hint}`}</Text> : null}
        </Text>
      ))}
      {hintOnLast ? null : <Text dimColor>{hint}</Text>}
    </Box>
  );
}
