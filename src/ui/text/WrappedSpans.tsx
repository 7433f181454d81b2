// Styled text drawn as lines kb wrapped itself (UAX #14, East Asian width, numbers kept with
// their units), each line its own <Text> that Ink never wraps again.
import { Box, Text } from 'ink';
import { wrapSpans, type Span, type SpanStyle } from './wrap-spans.ts';

export function WrappedSpans({ spans, width, style }: { spans: readonly Span[]; width: number; style?: SpanStyle }) {
  const lines = wrapSpans(spans, Math.max(1, width));
  return (
    <Box flexDirection="column">
      {lines.map((line, index) => (
        <Text key={index} wrap="truncate-end" {...style}>
          {line.length === 0 ? ' ' : line.map((span, at) => <Text key={at} {...span.style}>{span.text}</Text>)}
        </Text>
      ))}
    </Box>
  );
}

/** Plain text in one style, wrapped. */
export function WrappedText({ text, width, ...style }: { text: string; width: number } & SpanStyle) {
  return <WrappedSpans spans={[{ text, style: {} }]} width={width} style={style} />;
}
