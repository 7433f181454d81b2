// A long note (a 2 MB Markdown file from an Obsidian vault) took ~20 s to show its answer in
// kb review, keys acting late meanwhile: the whole of it was parsed (remark is superlinear),
// wrapped and laid out by Ink at every key. The work for a screen is now bounded by the
// screen: the sections around the rows shown are parsed and drawn, and kept.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Box, renderToString } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Blocks } from '../../src/ui/markdown/Blocks.tsx';
import { MarkdownLines } from '../../src/ui/markdown/markdown-lines.ts';
import { MarkdownSections } from '../../src/ui/markdown/markdown-sections.ts';
import { parseMarkdown } from '../../src/ui/markdown/parse-markdown.ts';
import { ReviewScreen } from '../../src/ui/review/ReviewScreen.tsx';
import { longNoteAnswer, longNoteBody } from '../helpers/long-note.ts';
import { FakeController, screenCard } from './fake-controller.ts';
import { press, shows } from './ink-input.ts';

// Every text wrapped for the screen goes through wrapRanges: its characters, counted, are the work done.
const wrapped = vi.hoisted(() => ({ chars: 0 }));
vi.mock('../../src/ui/text/line-wrap.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/ui/text/line-wrap.ts')>();
  return {
    ...actual,
    wrapRanges: (...args: Parameters<typeof actual.wrapRanges>) => {
      wrapped.chars += args[0].length;
      return actual.wrapRanges(...args);
    },
  };
});

afterEach(() => cleanup());

const PAGE_DOWN = '\x1b[6~';

describe('a long note in kb review', () => {
  it('shows its answer and scrolls by drawing only the sections around the screen', async () => {
    const body = longNoteBody(300_000);
    const card = screenCard('big', { front: '推理优化笔记：what limits decode throughput?', back: longNoteAnswer(body), full: body });
    const app = render(<ReviewScreen controller={new FakeController([card])} startedAt={0} now={() => 0} />);
    await shows(app.lastFrame, 'Space answer');
    wrapped.chars = 0;
    await press(app.stdin, ' ');
    await shows(app.lastFrame, 'Section 0: KV cache');
    // A screen of 24 rows and two pages below it: a few sections of ~600 characters of text each, not 300 KB.
    expect(wrapped.chars).toBeLessThan(20_000);
    // How many lines the rest makes is not known until it is drawn.
    await shows(app.lastFrame, '↓ more lines');
    for (let i = 0; i < 10; i++) await press(app.stdin, PAGE_DOWN);
    const later = await shows(app.lastFrame, 'Section 7: KV cache');
    expect(later).not.toContain('Section 0:');
    expect(wrapped.chars).toBeLessThan(40_000);
    // The whole note (f): drawn the same way, from its own title.
    await press(app.stdin, 'f');
    const full = await shows(app.lastFrame, 'what limits decode throughput?');
    expect(full).toContain('Section 0: KV cache');
    expect(wrapped.chars).toBeLessThan(60_000);
  }, 30_000);
});

describe('a long text drawn a section at a time', () => {
  const whole = (source: string, width: number) =>
    renderToString(<Box flexDirection="column" width={width}><Blocks nodes={parseMarkdown(source).children} width={width} /></Box>, { columns: width });
  const bySections = (source: string, width: number) => new MarkdownLines(new MarkdownSections(source), width).upTo(Infinity).join('\n');

  it('draws the lines the whole text draws: kb bundled notes and cards, and what the cuts must not split', () => {
    const files = execSync('git ls-files "notes/*.md" "cards/*.md"', { encoding: 'utf8' }).trim().split('\n');
    const bundled = files.map((file) => readFileSync(file, 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '')).join('\n');
    const tricky = [
      // An HTML comment (drawn as nothing) at a section's end; `#` lines in code, math, <pre>;
      // a reference and a footnote defined at the text's end; a setext heading; a wiki link.
      '## Q\n<!-- kb:id=x -->\n\nanswer\n<!-- note -->\n\n## Next\n\ntext\n<!-- end -->\n',
      '# T\n\n```\n# not a heading\n```\n\n# Two\n\n- item\n# Three\n\n> quote\n# Four [x][r] and[^1]\n\n$$\n# in math\n$$\n\n<pre>\n# in pre\n</pre>\n# Five\n\n',
      '# A\n\n    # indented code\n# B\npara\n===\n# C\n\n<div>\n# in div\n</div>\n\n~~~~\n# x\n~~~\n# y\n~~~~\n# D [[wiki link]] $x^2$ and $5 and $6\n\n| a | b |\n|---|---|\n| 1 | 2 |\n# E\n',
    ].map((text) => text.repeat(20)).join('') + '[r]: http://a\n\n[^1]: foot note\n';
    for (const source of [bundled, tricky, longNoteBody(40_000), noHeadings(40_000)]) {
      for (const width of [99]) expect(bySections(source, width)).toBe(whole(source, width));
    }
  });

  // A 1 MB note with no heading (a clipped article, a log) was one section: `f` on it froze
  // kb review ~45 s, Ctrl-C unheard, parsing it whole.
  it('cuts a long text without headings at paragraphs, so its first screen parses a few KB', () => {
    const sections = new MarkdownSections(noHeadings(200_000));
    expect(sections.section(0)?.length).toBeGreaterThan(0);
    expect(sections.parsedChars).toBeLessThan(20_000);
    expect(sections.complete).toBe(false);
  });
});

/**
 * About `chars` of Markdown with no heading: paragraphs, and what a cut at a paragraph must not
 * split (a loose list, a list item's second paragraph, a quote, indented code, a table, a
 * footnote's second paragraph, a fence holding a blank line and a paragraph-like line).
 */
function noHeadings(chars: number): string {
  const parts: string[] = [];
  for (let i = 0, size = 0; size < chars; i++) {
    const part =
      `Paragraph ${i}: decode is memory-bound, 解码阶段受内存带宽限制 **bold** and \`code\`[^${i % 3}].\n\n` +
      `- item ${i}\n\n- loose item\n\n  its second paragraph\n\nAfter the list ${i}.\n\n` +
      `> quoted ${i}\n\nNot quoted.\n\n    indented code ${i}\n\n    more code\n\n| a | b |\n|---|---|\n| ${i} | x |\n\n` +
      '```\ncode\n\nParagraph-like line in code\n```\n\n---\n\n1. one\n\n2. two\n\n';
    parts.push(part);
    size += part.length;
  }
  return `${parts.join('')}[^0]: foot\n\n    second paragraph of the footnote\n\n[^1]: one\n[^2]: two\n`;
}
