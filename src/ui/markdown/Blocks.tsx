// A sequence of block nodes, a blank line between them (none inside a tight list), and the
// blocks that hold blocks (lists and quotes): one file, as they render one another.
import { Box, Text } from 'ink';
import type { Blockquote, List as ListNode, RootContent } from 'mdast';
import type {} from 'mdast-util-math';
import { toString } from 'mdast-util-to-string';
import stringWidth from 'string-width';
import { WrappedSpans, WrappedText } from '../text/WrappedSpans.tsx';
import { calloutColor, calloutOf, defaultCalloutTitle } from './callout.ts';
import { CodeBlock } from './CodeBlock.tsx';
import { Heading } from './Heading.tsx';
import { htmlText, inlineSpans } from './inline-spans.ts';
import { Table } from './Table.tsx';
import { texToUnicode } from './tex-to-unicode.ts';

interface BlocksProps {
  nodes: readonly RootContent[];
  width: number;
  tight?: boolean;
  listDepth?: number;
}

/** A block that draws something: a link's definition and frontmatter do not. */
export function isShownBlock(node: RootContent): boolean {
  return node.type !== 'definition' && node.type !== 'yaml';
}

export function Blocks({ nodes, width, tight = false, listDepth = 0 }: BlocksProps) {
  const shown = nodes.filter(isShownBlock);
  return (
    <Box flexDirection="column">
      {shown.map((node, index) => (
        <Box key={index} flexDirection="column" marginTop={index > 0 && !tight ? 1 : 0}>
          <Block node={node} width={Math.max(8, width)} listDepth={listDepth} />
        </Box>
      ))}
    </Box>
  );
}

function Block({ node, width, listDepth }: { node: RootContent; width: number; listDepth: number }) {
  switch (node.type) {
    case 'heading':
      return <Heading node={node} width={width} />;
    case 'paragraph':
      return <WrappedSpans spans={inlineSpans(node.children)} width={width} />;
    case 'list':
      return <List node={node} width={width} depth={listDepth} />;
    case 'code':
      return <CodeBlock node={node} />;
    case 'blockquote':
      return <BlockQuote node={node} width={width} />;
    case 'table':
      return <Table node={node} width={width} />;
    case 'thematicBreak':
      return <Text color="gray">{'─'.repeat(Math.max(1, width))}</Text>;
    case 'html': {
      const text = htmlText(node.value).replace(/\n{3,}/g, '\n\n').trim();
      return text === '' ? null : <WrappedText text={text} width={width} />;
    }
    case 'footnoteDefinition':
      // "[1] the note's text", as a footnote reads at the foot of a page.
      return (
        <Box>
          <Text dimColor>{`[${node.label ?? node.identifier}] `}</Text>
          <Box flexDirection="column" flexGrow={1}>
            {node.children.map((child, index) => (
              <Block key={index} node={child} width={Math.max(1, width - stringWidth(`[${node.label ?? node.identifier}] `))} listDepth={listDepth} />
            ))}
          </Box>
        </Box>
      );
    case 'math':
      // A display formula, set off by its indent as it would be by centring on a page.
      return (
        <Box paddingLeft={2}>
          <WrappedText text={texToUnicode(node.value)} width={width - 2} italic />
        </Box>
      );
    default:
      return <WrappedText text={toString(node)} width={width} />;
  }
}

/**
 * A bulleted or numbered list; items hold blocks, so lists nest. A task item keeps its list's
 * bullet and shows its box after it ("• [ ] task"), its text wrapping under the text: as the
 * list's marker, the box pushed every sibling's text three columns right of its bullet.
 */
function List({ node, width, depth = 0 }: { node: ListNode; width: number; depth?: number }) {
  const start = node.start ?? 1;
  const markers = node.children.map((_, index) => (node.ordered ? `${start + index}.` : depth % 2 === 0 ? '•' : '◦'));
  const markerWidth = Math.max(...markers.map((marker) => marker.length)) + 1;
  return (
    <Box flexDirection="column">
      {node.children.map((item, index) => {
        const box = item.checked === true ? '[x] ' : item.checked === false ? '[ ] ' : '';
        return (
          <Box key={index} flexDirection="row">
            <Box width={markerWidth} flexShrink={0}>
              <Text color="gray">{markers[index]}</Text>
            </Box>
            {box === '' ? null : (
              <Box width={box.length} flexShrink={0}>
                <Text color="gray">{box}</Text>
              </Box>
            )}
            <Box flexDirection="column" flexGrow={1} flexShrink={1}>
              <Blocks nodes={item.children} width={width - markerWidth - box.length} tight={!node.spread} listDepth={depth + 1} />
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}

/**
 * A block quote: its blocks behind a grey bar on the left. An Obsidian callout (`> [!tip]
 * Title`) gets its kind's colour and its title on the first line.
 */
function BlockQuote({ node, width }: { node: Blockquote; width: number }) {
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
