// Phrasing content (text, emphasis, strong, code, links, ...) as nested Ink <Text>.
import { Text } from 'ink';
import type { PhrasingContent } from 'mdast';
import { toString } from 'mdast-util-to-string';

export function Inline({ nodes }: { nodes: readonly PhrasingContent[] }) {
  return (
    <>
      {nodes.map((node, index) => (
        <InlineNode key={index} node={node} />
      ))}
    </>
  );
}

function InlineNode({ node }: { node: PhrasingContent }) {
  switch (node.type) {
    case 'text':
      return <Text>{node.value}</Text>;
    case 'strong':
      return (
        <Text bold>
          <Inline nodes={node.children} />
        </Text>
      );
    case 'emphasis':
      return (
        <Text italic>
          <Inline nodes={node.children} />
        </Text>
      );
    case 'delete':
      return (
        <Text strikethrough>
          <Inline nodes={node.children} />
        </Text>
      );
    case 'inlineCode':
      return <Text color="yellow">{node.value}</Text>;
    case 'break':
      return <Text>{'\n'}</Text>;
    case 'link': {
      const label = toString(node);
      return (
        <Text>
          <Text color="blue" underline>
            <Inline nodes={node.children} />
          </Text>
          {label === node.url ? null : <Text dimColor>{` (${node.url})`}</Text>}
        </Text>
      );
    }
    case 'image':
      return <Text dimColor>{`[image: ${node.alt || node.url}]`}</Text>;
    case 'html':
      return <Text dimColor>{node.value}</Text>;
    case 'footnoteReference':
      return <Text dimColor>{`[^${node.label ?? node.identifier}]`}</Text>;
    default:
      return <Text>{toString(node)}</Text>;
  }
}
