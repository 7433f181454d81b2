// Markdown as Obsidian users write it (issue #13, item 8): wiki links and embeds, callouts,
// TeX math shown legibly, relative links as their text.
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { Markdown } from '../../src/ui/markdown/Markdown.tsx';
import { texToUnicode } from '../../src/ui/markdown/tex-to-unicode.ts';

afterEach(() => cleanup());

function frame(source: string, width = 80): string {
  return render(<Markdown source={source} width={width} />).lastFrame() ?? '';
}

describe('Obsidian Markdown', () => {
  it('shows a wiki link as its title or alias, and an embed as a placeholder with its name', () => {
    const out = frame('See [[kv-cache|the KV cache]], [[prefill]] and [[metrics/ttft#Queue wait]].\n\n![[diagram.png]]');
    expect(out).toContain('See the KV cache, prefill and metrics/ttft > Queue wait.');
    expect(out).toContain('[embed: diagram.png]');
    expect(out).not.toContain('[[');
  });

  it('shows ==highlights==, footnotes and HTML as a reader would see them, not as source (found as a user)', () => {
    const out = frame('A ==highlighted== word, a footnote[^1].<br>Next line.\n\n<details><summary>Click</summary>\n\nHidden text.\n\n</details>\n\n[^1]: The footnote itself.');
    expect(out).toContain('A highlighted word, a footnote[1].');
    expect(out).toMatch(/^Next line\.$/m);
    expect(out).toContain('Click');
    expect(out).toContain('Hidden text.');
    expect(out).toContain('[1] The footnote itself.');
    expect(out).not.toMatch(/==|\[\^1\]|<br>|<details>|<summary>|<\/details>/);
  });

  it('draws a callout with its title (or its kind) instead of the [!kind] marker', () => {
    const out = frame('> [!tip] Remember this\n> TTFT includes the queue wait.\n\n> [!warning]\n> Not the same as TPOT.');
    expect(out).toMatch(/┃ Remember this\n┃ TTFT includes the queue wait\./);
    expect(out).toMatch(/┃ Warning\n┃ Not the same as TPOT\./);
    expect(out).not.toContain('[!');
  });

  it('reads foldable callouts, GitHub alerts, and wiki links in headings and table cells', () => {
    const out = frame('# About [[ttft|TTFT]]\n\n> [!faq]- Why **queue** wait?\n> Admission is capped.\n\n> [!NOTE]\n> GitHub style.\n\n| see | note |\n|--|--|\n| [[kv-cache]] | x |\n');
    expect(out).toContain('About TTFT');
    expect(out).toMatch(/┃ Why queue wait\?\n┃ Admission is capped\./);
    expect(out).toMatch(/┃ Note\n┃ GitHub style\./);
    expect(out).toContain('│ kv-cache │');
  });

  it('shows inline and display math legibly, not as TeX', () => {
    const out = frame('Attention costs $O(n^2)$ and $\\alpha \\le 1$.\n\n$$\n\\text{TPOT} = \\frac{T_{end} - T_{first}}{n - 1}\n$$');
    expect(out).toContain('Attention costs O(n²) and α ≤ 1.');
    expect(out).toContain('TPOT = (T_end - T_first)/(n - 1)');
    expect(out).not.toContain('\\frac');
  });

  it('leaves dollar amounts in prose alone', () => {
    expect(frame('Saves $0.06/s ($5,184/day) at $2 per hour.')).toContain('Saves $0.06/s ($5,184/day) at $2 per hour.');
  });

  it('shows a relative link as its text only, a web link with its address', () => {
    const out = frame('See [TPOT and ITL](./tpot-itl.md) and [vLLM](https://docs.vllm.ai).');
    expect(out).toContain('See TPOT and ITL and vLLM (https://docs.vllm.ai).');
  });
});

describe('texToUnicode', () => {
  it('writes superscripts, subscripts, fractions, roots and Greek letters as Unicode', () => {
    expect(texToUnicode('x^2 + y_1')).toBe('x² + y₁');
    expect(texToUnicode('\\frac{a}{b}')).toBe('a/b');
    expect(texToUnicode('\\frac{a+b}{2}')).toBe('(a+b)/2');
    expect(texToUnicode('\\sqrt{x+1}')).toBe('√(x+1)');
    expect(texToUnicode('e^{-\\lambda t}')).toBe('e^(-λt)');
    expect(texToUnicode('\\left( \\frac{1}{2} \\right)^2')).toBe('(1/2)²');
    expect(texToUnicode('100\\% \\times 3')).toBe('100% × 3');
  });
});
