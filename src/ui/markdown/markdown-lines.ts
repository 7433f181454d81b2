// A long Markdown text as the terminal lines it draws, made a section at a time
// (markdown-sections.ts) as far as a screen has scrolled, and kept: laid out by Ink whole, a
// 2 MB note was 60,000 lines of Ink nodes drawn again at every key. Each section is drawn by
// the same components as a short text (Blocks), so its lines are those it would have there.
import { Box, renderToString } from 'ink';
import { createElement } from 'react';
import { Blocks, isShownBlock } from './Blocks.tsx';
import { markdownSections, type MarkdownSections } from './markdown-sections.ts';

export class MarkdownLines {
  /** The lines drawn so far, with their colours (ANSI), each fitting the width. */
  readonly lines: string[] = [];
  private next = 0;
  private done = false;
  private drewBlocks = false;

  private readonly sections: MarkdownSections;
  private readonly width: number;

  constructor(sections: MarkdownSections, width: number) {
    this.sections = sections;
    this.width = width;
  }

  /** Every section is drawn: `lines` is the whole text. */
  get complete(): boolean {
    return this.done;
  }

  /** The lines, at least `count` of them unless the text has fewer: sections are drawn until then. */
  upTo(count: number): readonly string[] {
    while (this.lines.length < count && !this.done) {
      const blocks = this.sections.section(this.next);
      if (blocks === null) {
        this.done = true;
        break;
      }
      this.next++;
      const shown = blocks.filter(isShownBlock);
      if (shown.length === 0) continue;
      const drawn = renderToString(createElement(Box, { flexDirection: 'column', width: this.width }, createElement(Blocks, { nodes: shown, width: this.width })), { columns: this.width });
      // A blank line between two sections' blocks, as Blocks sets between any two (one that
      // draws nothing, an HTML comment, has its blank line all the same).
      if (this.drewBlocks) this.lines.push('');
      this.drewBlocks = true;
      if (drawn !== '') this.lines.push(...drawn.split('\n'));
    }
    return this.lines;
  }
}

const drawn = new WeakMap<MarkdownSections, Map<number, MarkdownLines>>();

/** The lines of `source` at `width`, kept while its sections are (a resize draws them afresh). */
export function markdownLines(source: string, width: number): MarkdownLines {
  const sections = markdownSections(source);
  let byWidth = drawn.get(sections);
  if (!byWidth) drawn.set(sections, (byWidth = new Map()));
  let lines = byWidth.get(width);
  if (!lines) byWidth.set(width, (lines = new MarkdownLines(sections, width)));
  return lines;
}
