// How Markdown paragraphs wrap on the terminal (issue #13, item 7): UAX #14 breaks with East
// Asian width, no line starting with the space it broke at, a number kept with its unit.
import fc from 'fast-check';
import { cleanup, render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { Markdown } from '../../src/ui/markdown/Markdown.tsx';

afterEach(() => cleanup());

function lines(source: string, width: number): string[] {
  const { lastFrame, unmount } = render(<Markdown source={source} width={width} />);
  const out = (lastFrame() ?? '').split('\n').map((line) => line.trimEnd());
  unmount();
  return out;
}

const ENGLISH = 'Decode reads every weight once per step, so at 2 TB/s a 14 GB model needs at least 7 ms per token and batching shares that read among 32 sequences.';
const CHINESE = '三步：1) 先确认瓶颈在显存带宽：decode 阶段每个 token 都要把全部权重读一遍，H100 的带宽约 3.35 TB/s，所以 7B 模型 fp16 一步至少要 4 ms。2) 再看 batch 能否摊薄权重读取。3) 最后才考虑量化。';

describe('Markdown wrapping', () => {
  it('starts no line with a space, whatever the width (a full line above included)', () => {
    for (let width = 12; width <= 80; width++) {
      for (const line of lines(ENGLISH, width)) {
        expect(line, `width ${width}`).not.toMatch(/^ /);
        expect(stringWidth(line)).toBeLessThanOrEqual(width);
      }
    }
  });

  it('never breaks between a number and its unit', () => {
    for (let width = 12; width <= 80; width++) {
      const out = lines(ENGLISH, width);
      for (const figure of ['2 TB/s', '14 GB', '7 ms']) expect(out.some((line) => line.includes(figure)), `width ${width}: ${figure}`).toBe(true);
    }
  });

  it('breaks Chinese between characters, so lines end full, not ragged at spaces', () => {
    for (const width of [40, 80, 100]) {
      const out = lines(CHINESE, width);
      // Every line but the last is nearly full (a wide character or a kept figure may leave a few cells).
      for (const line of out.slice(0, -1)) expect(stringWidth(line), `width ${width}: ${line}`).toBeGreaterThanOrEqual(width - 10);
      expect(out.join('').replace(/\s/g, '')).toBe(CHINESE.replace(/\s/g, ''));
    }
    expect(lines(CHINESE, 100)[0]).not.toBe('三步：1)');
  });

  it('keeps every line within the width and the text whole (property, Chinese and English)', () => {
    const word = fc.constantFrom('KV', 'cache', 'prefill', 'throughput', 'p95', '20 ms', '2 TB/s', '显存', '带宽', '预填充阶段', '，', '。', '(note)');
    const text = fc.array(fc.tuple(word, fc.constantFrom(' ', '', ' ')), { minLength: 1, maxLength: 40 }).map((parts) => parts.map(([w, s]) => w + s).join('').trim());
    fc.assert(
      fc.property(text, fc.constantFrom(12, 20, 33, 80, 120, 200), (source, width) => {
        const out = lines(source, width);
        for (const line of out) {
          expect(stringWidth(line)).toBeLessThanOrEqual(width);
          expect(line).not.toMatch(/^ /);
        }
        expect(out.join('').replace(/\s/g, '')).toBe(source.replace(/\s/g, ''));
      }),
      { numRuns: 30 },
    );
  });
});
