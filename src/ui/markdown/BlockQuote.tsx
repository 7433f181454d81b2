// A block quote: its blocks behind a grey bar on the left. An Obsidian callout (`> [!tip]
// Title`) gets its kind's colour and its title on the first line.
import { Box } from 'ink';
import type { Blockquote } from 'mdast';
import { WrappedSpans } from '../text/WrappedSpans.tsx';
import { Blocks } from './Blocks.tsx';
import { calloutColor, calloutOf, defaultCalloutTitle } from './callout.ts';
import { inlineSpans } from './inline-spans.ts';

export function BlockQuote({ node, width }: { node: Blockquote; width: number }) {
  const callout = calloutOf(node);
  const color = callout ? calloutColor(callout.kind) : 'gray';
  const title = callout && (callout.title.length > 0 ? inlineSpans(callout.title) : [{ text: defaultCalloutTitle(callout.kind), style: {} }]);
  return (
    <Box
      borderStyle="bold"
      borderColor={color}
      borderTop={false}
      borderRight={false}
      borderBottom={false}
      paddingLeft={1}
      flexDirection="column"
    >
      {title ? <WrappedSpans spans={title} width={width - 2} style={{ bold: true, color }} /> : null}
      <Blocks nodes={callout ? callout.body : node.children} width={width - 2} />
    </Box>
  );
}
