// Renders Markdown in the terminal: mdast -> Ink. `width` is the number of columns it may
// use (the review screen passes the terminal width, so a resize re-lays it out).
import { Box, Text, type DOMElement } from 'ink';
import { memo, useContext, useEffect, useLayoutEffect, useReducer, useRef, useState } from 'react';
import { Blocks } from './Blocks.tsx';
import { markdownLines } from './markdown-lines.ts';
import { SECTIONED_MIN_CHARS } from './markdown-sections.ts';
import { parseMarkdown } from './parse-markdown.ts';
import { linesToDraw, ScreenWindowContext, type ScreenWindow } from './screen-window.ts';

export function Markdown({ source, width }: { source: string; width: number }) {
  const shown = useContext(ScreenWindowContext);
  if (shown && source.length >= SECTIONED_MIN_CHARS) return <LongMarkdown source={source} width={width} window={shown} />;
  return <WholeMarkdown source={source} width={width} />;
}

/** A text drawn whole, as every normal note is. Memoised: scrolling changes the window, not the text. */
const WholeMarkdown = memo(function WholeMarkdown({ source, width }: { source: string; width: number }) {
  const tree = parseMarkdown(source);
  return (
    <Box flexDirection="column" width={width}>
      <Blocks nodes={tree.children} width={width} />
    </Box>
  );
});

/**
 * A long text (an Obsidian note of megabytes) on a scrolled screen: only the lines around the
 * rows shown are drawn (markdown-lines.ts, as far down as the screen has been, kept); the
 * lines above and the ones drawn below stand as blank rows of the same height, so the
 * screen's scrolling and its count of lines below are unchanged. How many lines the undrawn
 * rest makes is not known: the screen is told there is more.
 */
function LongMarkdown({ source, width, window }: { source: string; width: number; window: ScreenWindow }) {
  const doc = markdownLines(source, width);
  // Where this text starts on the screen's content: a card's answer starts below its question
  // (and its source line), which may be many pages tall. Measured after each layout; the
  // first render takes the content's top until then.
  const box = useRef<DOMElement>(null);
  const [textTop, setTextTop] = useState(0);
  const { rowOf } = window;
  useLayoutEffect(() => {
    if (!box.current) return;
    const row = rowOf(box.current);
    if (row !== textTop) setTextTop(row);
  });
  const lines = doc.lines;
  const { from, to } = linesToDraw(window, textTop, lines.length);
  const shown = lines.slice(from, to);
  const after = lines.length - from - shown.length;
  const missing = lines.length < to && !doc.complete;
  // The lines not drawn yet are drawn just after this render, not in it: a section is drawn
  // by Ink's renderToString, and React cannot render one root while it renders another.
  const [, drew] = useReducer((count: number) => count + 1, 0);
  useEffect(() => {
    if (!missing) return;
    const timer = setImmediate(() => {
      doc.upTo(to);
      drew();
    });
    return () => clearImmediate(timer);
  }, [doc, to, missing]);
  const undrawn = !doc.complete;
  const { undrawnBelow } = window;
  useEffect(() => {
    if (undrawn) return undrawnBelow();
  }, [undrawn, undrawnBelow]);
  return (
    <Box ref={box} flexDirection="column" width={width}>
      {from > 0 ? <Box height={from} flexShrink={0} /> : null}
      <Text>{shown.join('\n')}</Text>
      {after > 0 ? <Box height={after} flexShrink={0} /> : null}
    </Box>
  );
}
