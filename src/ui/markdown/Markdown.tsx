// Renders Markdown in the terminal: mdast -> Ink. `width` is the number of columns it may
// use (the review screen passes the terminal width, so a resize re-lays it out).
import { Box } from 'ink';
import { Blocks } from './Blocks.tsx';
import { parseMarkdown } from './parse-markdown.ts';

export function Markdown({ source, width }: { source: string; width: number }) {
  const tree = parseMarkdown(source);
  return (
    <Box flexDirection="column" width={width}>
      <Blocks nodes={tree.children} width={width} />
    </Box>
  );
}
