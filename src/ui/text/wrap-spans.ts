// Styled text (runs of text with a style each) wrapped into lines: the breaks are found on the
// plain text (line-wrap.ts), then the runs are cut where the lines begin and end.
import { wrapRanges } from './line-wrap.ts';

/** How a run of text is drawn: the props of Ink's <Text> that style text. */
export interface SpanStyle {
  color?: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strikethrough?: boolean;
  dimColor?: boolean;
  /** Obsidian's ==highlight==: the text on its colour swapped. */
  inverse?: boolean;
}

export interface Span {
  text: string;
  style: SpanStyle;
}

/** The spans of each line of `spans` wrapped to `width` cells (a line may hold no span). */
export function wrapSpans(spans: readonly Span[], width: number): Span[][] {
  const text = spans.map((span) => span.text).join('');
  const starts: number[] = [];
  let offset = 0;
  for (const span of spans) {
    starts.push(offset);
    offset += span.text.length;
  }
  return wrapRanges(text, width).map(([start, end]) => {
    const line: Span[] = [];
    spans.forEach((span, index) => {
      const from = Math.max(start, starts[index]);
      const to = Math.min(end, starts[index] + span.text.length);
      if (to > from) line.push({ text: span.text.slice(from - starts[index], to - starts[index]), style: span.style });
    });
    return line;
  });
}
