import { cleanup, render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { Markdown } from '../../src/ui/markdown/Markdown.tsx';
import { columnWidths, layoutTable } from '../../src/ui/markdown/table-layout.ts';

afterEach(() => cleanup());

function frame(source: string, width: number): string {
  return render(<Markdown source={source} width={width} />).lastFrame() ?? '';
}

describe('Markdown', () => {
  it('renders headings, emphasis, inline code, links, lists and quotes as text', () => {
    const out = frame(
      '# Title\n\nSome *emph*, **strong**, `code` and [docs](https://example.com/x).\n\n- one\n- two\n  1. nested\n\n> quoted\n\n- [x] done\n\n---\n',
      60,
    );
    expect(out).toContain('Title');
    expect(out).toContain('Some emph, strong, code and docs (https://example.com/x).');
    expect(out).toMatch(/• one\n• two\n {2}1\. nested/);
    expect(out).toContain('┃ quoted');
    expect(out).toContain('[x] done');
    expect(out).toContain('─'.repeat(60));
  });

  it('draws a task item with its list\'s bullet, the box after it, and wraps its text under the text (found as a user: "[ ]" at column 0 pushed the siblings\' text three columns out)', () => {
    const out = frame('- plain item\n- [ ] 复习 [[KV Cache]]\n- [x] a finished task whose words run past the width of the card\n', 30);
    expect(out).toBe('• plain item\n• [ ] 复习 KV Cache\n• [x] a finished task whose\n      words run past the width\n      of the card');
  });

  it('frames fenced code under its language label', () => {
    const out = frame('```python\ndef f(x):\n    return x\n```\n', 40);
    expect(out).toMatch(/python\n╭─+╮\n│ def f\(x\): +│\n│ {5}return x +│/);
  });

  it('wraps every line to the width, counting Chinese characters as two cells', () => {
    const source = '首字延迟由预填充阶段决定，吞吐量由解码效率决定。交互式应用更看重首字延迟，而批处理任务更看重吞吐量和成本。';
    for (const width of [20, 41, 80]) {
      const lines = frame(source, width).split('\n');
      for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(width);
      expect(lines.join('')).toBe(source);
    }
  });

  it('draws tables with aligned columns, Chinese included', () => {
    const out = frame('| 指标 | value |\n|:--|--:|\n| 首字延迟 | 700 ms |\n| TPOT | 50 |\n', 60);
    const lines = out.split('\n');
    expect(new Set(lines.map((line) => stringWidth(line))).size).toBe(1);
    expect(out).toContain('│ 首字延迟 │ 700 ms │');
    expect(out).toContain('│ TPOT     │     50 │');
  });
});

describe('table layout', () => {
  it('shrinks the widest columns to fit and wraps their cells', () => {
    const rows = [['name', 'description'], ['ttft', 'time from submitting a request to its first output token']];
    expect(columnWidths(rows, 30).reduce((a, b) => a + b, 0) + 7).toBeLessThanOrEqual(30);
    const lines = layoutTable(rows, [null, null], 30);
    for (const line of [lines.top, ...lines.header, ...lines.body.flat(), lines.bottom]) expect(stringWidth(line)).toBeLessThanOrEqual(30);
    expect(lines.body[0].length).toBeGreaterThan(1);
  });

  it('wraps a cell before a full-width bracket after a Latin word: `PagedAttention（` was left with its bracket at the line end', () => {
    const rows = [['术语', '含义'], ['KV cache（缓存）', '每个 token 的 K/V 张量'], ['PagedAttention（分页注意力）', '把 KV cache（缓存）分块存放']];
    expect(layoutTable(rows, [null, null], 40).body[1]).toEqual(['│ PagedAttention   │ 把 KV cache（缓   │', '│ （分页注意力）   │ 存）分块存放      │']);
    expect(layoutTable(rows, [null, null], 24).body[0].slice(0, 2).map((line) => line.split('│')[1])).toEqual([' KV cache ', ' （缓存） ']);
    for (let width = 20; width <= 60; width++) {
      const cells = layoutTable(rows, [null, null], width).body.flat().flatMap((line) => line.split('│').map((cell) => cell.trim()));
      for (const cell of cells) expect(cell, `width ${width}`).not.toMatch(/（$/);
    }
  });
});
