// Styled text drawn as lines kb wrapped itself (UAX #14, East Asian width, numbers kept with
// their units). The lines go to Ink as one <Text> joined by newlines: each fits the width, so
// Ink's own wrapping leaves them as they are, and a paragraph costs one text node, not one a line.
import { Text } from 'ink';
import { wrapSpans, type Span, type SpanStyle } from './wrap-spans.ts';

export function WrappedSpans({ spans, width, style }: { spans: readonly Span[]; width: number; style?: SpanStyle }) {
  const lines = wrapSpans(spans, Math.max(1, width));
  const joined = lines.flatMap((line, index) => (index === 0 ? line : [{ text: '\n', style: {} }, ...line]));
  return (
    <Text {...style}>
      {joined.length === 0 ? ' ' : joined.map((span, at) => <Text key={at} {...span.style}>{span.text}</Text>)}
    </Text>
  );
}

/** Plain text in one style, wrapped. */
export function WrappedText({ text, width, ...style }: { text: string; width: number } & SpanStyle) {
  return <WrappedSpans spans={[{ text, style: {} }]} width={width} style={style} />;
}
