// A long note (a 2 MB Markdown file from an Obsidian vault) took ~20 s to show its answer in
// kb review, keys acting late meanwhile: the whole of it was parsed (remark is superlinear),
// wrapped and laid out by Ink at every key. The work for a screen is now bounded by the
// screen: the sections around the rows shown are parsed and drawn, and kept.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Box, renderToString } from 'ink';
import stringWidth from 'string-width';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Blocks } from '../../src/ui/markdown/Blocks.tsx';
import { MarkdownLines } from '../../src/ui/markdown/markdown-lines.ts';
import { MarkdownSections } from '../../src/ui/markdown/markdown-sections.ts';
import { parseMarkdown } from '../../src/ui/markdown/parse-markdown.ts';
import { linesToDraw } from '../../src/ui/markdown/screen-window.ts';
import { ReviewScreen } from '../../src/ui/review/ReviewScreen.tsx';
import { longNoteAnswer, longNoteBody } from '../helpers/long-note.ts';
import { FakeController, screenCard } from './fake-controller.ts';
import { blankRun, press, resize, shows, until } from './ink-input.ts';

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
const PAGE_UP = '\x1b[5~';

/** A question of 80 lines (four pages at 80x24), and an answer over 16 KB (drawn a screen at a time) of 80 paragraphs in English and Chinese. */
function longCard(): { front: string; back: string } {
  const front = Array.from({ length: 80 }, (_, i) => `Question line ${i + 1}: why does this question run on for so many rows?`).join('\n');
  const back = Array.from({ length: 80 }, (_, i) =>
    `Answer paragraph ${i + 1}: decode reads every weight once per step, so the batch shares that read, and a larger batch costs little more per step until compute is the bound. 答案第${i + 1}段：解码阶段受内存带宽限制，批处理让多个序列共享一次读取，直到算力成为瓶颈。`,
  ).join('\n\n');
  return { front, back };
}

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

// A question longer than two pages above a long answer: paged down past the question, the
// answer drew blank rows (its lines were picked by the screen's row, counted from the card's
// top, as if the answer started there), and further down nothing at all.
describe('a long answer under a question pages long', () => {
  it('pages through the question into every line of the answer, and back', async () => {
    const { front, back } = longCard();
    expect(back.length).toBeGreaterThan(16_384);
    const app = render(<ReviewScreen controller={new FakeController([screenCard('long', { front, back, full: back })])} startedAt={0} now={() => 0} />);
    resize(app, 80, 24);
    await shows(app.lastFrame, 'Question line 1:');
    await press(app.stdin, ' ');
    await shows(app.lastFrame, '1 Again');
    const seen = new Set<number>();
    const page = async (key: string, done: (frame: string) => boolean) => {
      for (let i = 0; i < 60; i++) {
        await press(app.stdin, key);
        // The lines of a page not drawn yet are drawn just after it: wait for the screen to settle.
        const frame = await until(app.lastFrame, (text) => blankRun(text) < 3);
        expect(blankRun(frame), frame).toBeLessThan(3);
        for (const match of frame.matchAll(/Answer paragraph (\d+):/g)) seen.add(Number(match[1]));
        if (done(frame)) return frame;
      }
      throw new Error(`never reached the end: ${app.lastFrame()}`);
    };
    const bottom = await page(PAGE_DOWN, (frame) => frame.includes('(k to scroll back)'));
    expect(bottom).toContain('Answer paragraph 80:');
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    // Back up from the last page, which shows the last paragraphs.
    seen.clear();
    for (const match of bottom.matchAll(/Answer paragraph (\d+):/g)) seen.add(Number(match[1]));
    await page(PAGE_UP, (frame) => frame.includes('Question line 1:'));
    expect(seen.size).toBe(80);
  }, 30_000);
});

// Two long texts on one screen (a question over 16 KB and a long answer): once the question
// was drawn to its end, the screen counted the lines below as if the answer were too ("↓ 39
// more lines", then 104, 85, ...): one text's end cleared the other's "more to come".
it('a long question drawn to its end leaves the answer\'s undrawn rest unknown: "↓ more lines", no count', async () => {
  const front = Array.from({ length: 80 }, (_, i) => `Question line ${i + 1}: ${'why does this question run on and on for so many rows '.repeat(4)}问题第${i + 1}行。`).join('\n');
  expect(front.length).toBeGreaterThan(16_384);
  const body = longNoteBody(200_000);
  const app = render(<ReviewScreen controller={new FakeController([screenCard('long', { front, back: longNoteAnswer(body), full: body })])} startedAt={0} now={() => 0} />);
  resize(app, 80, 24);
  await shows(app.lastFrame, 'Question line 1:');
  await press(app.stdin, ' ');
  await shows(app.lastFrame, '1 Again');
  for (let i = 0; i < 60 && !app.lastFrame()?.includes('Section 1: KV cache'); i++) {
    await press(app.stdin, PAGE_DOWN);
    const frame = await until(app.lastFrame, (text) => /↓ (\d+ )?more line/.test(text));
    expect(frame, frame).toContain('↓ more lines (');
  }
  expect(app.lastFrame()).toContain('Section 1: KV cache');
}, 30_000);

// Paged to the end of a long answer, a terminal of another width (90x30 from 80x24) showed the
// card from its top: the answer's lines at the new width were not drawn yet, so the card
// measured a few rows, and the screen brought its offset down to them before they were drawn.
describe('a long answer read to its end, on a terminal of another width', () => {
  for (const question of ['short', 'over 16 KB']) {
    it(`keeps its place (a ${question} question)`, async () => {
      const { front: pagesLong, back } = longCard();
      const front = question === 'short' ? pagesLong : pagesLong.replaceAll('so many rows?', `${'so many rows, and on and on, '.repeat(8)}问题？`);
      if (question !== 'short') expect(front.length).toBeGreaterThan(16_384);
      const app = render(<ReviewScreen controller={new FakeController([screenCard('long', { front, back, full: back })])} startedAt={0} now={() => 0} />);
      resize(app, 80, 24);
      await shows(app.lastFrame, 'Question line 1:');
      await press(app.stdin, ' ');
      await shows(app.lastFrame, '1 Again');
      for (let i = 0; i < 200 && !app.lastFrame()?.includes('(k to scroll back)'); i++) await press(app.stdin, PAGE_DOWN);
      await shows(app.lastFrame, 'Answer paragraph 80:');
      resize(app, 90, 30);
      // The answer's end, drawn at the new width (the header now 89 columns), fills the screen (not the card's top).
      const after = await until(app.lastFrame, (frame) => stringWidth(frame.split('\n')[0]) === 89 && frame.includes('Answer paragraph 80:') && blankRun(frame) < 3);
      expect(stringWidth(after.split('\n')[0])).toBe(89);
      expect(after).toContain('Answer paragraph 80:');
      expect(after).not.toContain('Question line 1:');
      expect(blankRun(after)).toBeLessThan(3);
    }, 60_000);
  }
});

describe('which lines of a long text a scrolled screen draws', () => {
  const window = { top: 0, rows: 20 };

  it('counts from where the text starts on the screen, not from the card\'s top', () => {
    // An answer at row 100, under a question of five pages: the screen at row 100 shows its first lines.
    expect(linesToDraw({ ...window, top: 100 }, 100, 200)).toEqual({ from: 0, to: 60 });
    // Two pages into the answer: the page above it, the screen's and two below.
    expect(linesToDraw({ ...window, top: 140 }, 100, 200)).toEqual({ from: 0, to: 100 });
    expect(linesToDraw({ ...window, top: 200 }, 100, 200)).toEqual({ from: 60, to: 160 });
  });

  it('draws nothing new for a text below the pages around the screen, and stands a text scrolled past as tall as its lines', () => {
    expect(linesToDraw(window, 100, 0)).toEqual({ from: 0, to: 0 });
    // A long question of 150 lines drawn, the screen far below it in the answer.
    expect(linesToDraw({ ...window, top: 400 }, 2, 150)).toEqual({ from: 150, to: 458 });
  });
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
