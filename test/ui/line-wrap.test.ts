// Line wrapping in terminal cells (UAX #14 + East Asian width + the number-unit rule), unit
// and property tests: no line wider than the width, the lines reproduce the text, no line
// starts with an inserted space, a number and its unit are never split.
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { fitLines } from '../../src/ui/text/fit-lines.ts';
import { pathRanges, unbreakableRanges } from '../../src/ui/text/line-break.ts';
import { wrapRanges, wrapText } from '../../src/ui/text/line-wrap.ts';

const ZH = '三步：1) 先确认瓶颈在显存带宽：decode 阶段每个 token 都要把全部权重读一遍，H100 的带宽约 3.35 TB/s，所以 7B 模型 fp16 一步至少要 4 ms。';

describe('wrapText', () => {
  it('breaks Chinese between characters, filling each line', () => {
    const lines = wrapText(ZH, 40);
    expect(lines[0]).toBe('三步：1) 先确认瓶颈在显存带宽：decode 阶');
    for (const line of lines.slice(0, -1)) expect(stringWidth(line)).toBeGreaterThanOrEqual(38);
    expect(wrapText(ZH, 100)).toHaveLength(2);
  });

  it('keeps a number with its unit, in English and Chinese', () => {
    expect(wrapText('the bandwidth is 2 TB/s here', 18)).toEqual(['the bandwidth is', '2 TB/s here']);
    expect(wrapText('it takes 20 ms', 10)).toEqual(['it takes', '20 ms']);
    expect(wrapText('每步需要20毫秒左右', 10)).toEqual(['每步需要', '20毫秒左右']);
  });

  it('keeps words joined by a slash and a degree sign with their neighbours, at every width', () => {
    // Seen at 34-67 columns: `295 FLOP/` | `B`, `-5` | `°C`, `10 GiB/` | `序列`.
    const texts = ['低，远低于 H100 的屋脊点（约 295 FLOP/B）。以 70B 参数为例', '测测测测测测测测 -5 °C，测测测测测测 1,024 MiB，', '每个请求约 10 GiB/序列，再乘以并发数', 'TTFT p50/p99 and TPOT p50/p99 both rise'];
    for (const text of texts) {
      for (let width = 16; width <= 70; width++) {
        const lines = wrapText(text, width);
        for (let i = 0; i + 1 < lines.length; i++) {
          expect(`${lines[i]}|${lines[i + 1]}`, `${width} columns`).not.toMatch(/\/\|[A-Za-z\u4e00-\u9fff]|-5\|°C|p50\/\|p99/);
        }
      }
    }
  });

  it('keeps an option name whole, and still breaks a hyphenated word after its hyphen', () => {
    expect(wrapText('kb lab calibrate --name NAME', 19)).toEqual(['kb lab calibrate', '--name NAME']);
    expect(wrapText('x --name NAME', 6)).toEqual(['x', '--name', 'NAME']);
    expect(wrapText('run it with --max-new-tokens 16', 16)).toEqual(['run it with', '--max-new-tokens', '16']);
    expect(wrapText('a well-known trick', 8)).toEqual(['a well-', 'known', 'trick']);
  });

  it('keeps a hyphenated name or value of a kb command whole: it is copied to the shell', () => {
    // A calc card's source line at a 100-column card: "... run kb lab load-" / "sweep for your own figure)".
    const source = '(cap: a typical figure: you have no complete run of load-sweep on this machine yet; run kb lab load-sweep for your own figure)';
    expect(wrapText(source, 100)).toEqual(['(cap: a typical figure: you have no complete run of load-sweep on this machine yet; run kb lab', 'load-sweep for your own figure)']);
    // --compare's note at 80 columns: "--set device=cpu-gpt2-" / "tiny.".
    expect(wrapText('compare with --set device=cpu-gpt2-tiny, then kb lab ttft-breakdown --set device=cpu-gpt2-tiny', 36)).toEqual([
      'compare with --set',
      'device=cpu-gpt2-tiny, then kb lab',
      'ttft-breakdown --set',
      'device=cpu-gpt2-tiny',
    ]);
    // The prose around it still breaks after a hyphen, and a name wider than the line does too.
    expect(wrapText('a well-known kb lab batch-size-sweep', 16)).toEqual(['a well-known kb', 'lab', 'batch-size-sweep']);
    expect(wrapText('a well-known kb lab batch-size-sweep', 8)).toEqual(['a well-', 'known kb', 'lab', 'batch-', 'size-', 'sweep']);
  });

  it('keeps a path or a URL whole where it fits a line, and breaks one that cannot after a hyphen', () => {
    expect(wrapText('it has /tmp/kb-test-PusHrU/vault/kb.json; nothing changed', 40)).toEqual(['it has', '/tmp/kb-test-PusHrU/vault/kb.json;', 'nothing changed']);
    expect(wrapText('see notes/kv-cache/paged-attention.md:12 now', 38)).toEqual(['see', 'notes/kv-cache/paged-attention.md:12', 'now']);
    expect(wrapText('serving on http://127.0.0.1:8000/v1 now', 30)).toEqual(['serving on', 'http://127.0.0.1:8000/v1 now']);
    expect(wrapText('an input/output-heavy load', 16)).toEqual(['an input/output-', 'heavy load']);
    // Figures and units with slashes are not paths: they break as UAX #14 says (a number kept with its unit).
    expect(wrapText('TPOT 1.02/1.02/1.02 ms/token', 22)).toEqual(['TPOT', '1.02/1.02/1.02 ms/', 'token']);
  });

  it('breaks before a full-width opening bracket after a Latin word, never after it or inside the word (KV cache（缓存） left `cache（` at a line end, found at narrow widths)', () => {
    expect(wrapText('KV cache（缓存）', 10)).toEqual(['KV cache', '（缓存）']);
    expect(wrapText('PagedAttention（分页注意力）', 16)).toEqual(['PagedAttention', '（分页注意力）']);
    expect(wrapText('see 「KV cache」【注】 and GPT-2《模型》', 8)).toEqual(['see 「KV', 'cache」', '【注】', 'and', 'GPT-2', '《模型》']);
    const text = '什么是 KV cache（缓存）？它为什么随 sequence length（序列长度）线性增长，以及 PagedAttention（分页注意力）如何减少碎片？';
    const words = text.match(/[A-Za-z]+/g)!;
    for (let width = 8; width <= 60; width++) {
      const lines = wrapText(text, width);
      for (const line of lines) expect(line, `width ${width}: ${JSON.stringify(lines)}`).not.toMatch(/[（「【《]$/);
      // Every word that fits a line stands whole on one.
      for (const w of words) if (w.length <= width) expect(lines.some((line) => new RegExp(`(^|[^A-Za-z])${w}([^A-Za-z]|$)`).test(line)), `width ${width}: ${w} in ${JSON.stringify(lines)}`).toBe(true);
    }
    // A bracket after a space or a Chinese character, or a narrow one, breaks as before.
    expect(wrapText('缓存（KV）', 6)).toEqual(['缓存', '（KV）']);
    expect(wrapText('f(x) = y', 4)).toEqual(['f(x)', '= y']);
  });

  it('finds a path of any script, its folders and file name holding spaces (notes/推理 优化/预填 阶段.md was broken at its spaces)', () => {
    const paths = (text: string) => pathRanges(text).map(([start, end]) => text.slice(start, end));
    expect(paths('frontmatter updated: notes/推理 优化/预填 阶段.md')).toEqual(['notes/推理 优化/预填 阶段.md']);
    expect(paths('notes/推理 优化/预填 阶段.md: the file changed since it was read')).toEqual(['notes/推理 优化/预填 阶段.md']);
    expect(paths('see /tmp/my notes/a b.md:3 and ~/Заметки/кэш.md now')).toEqual(['/tmp/my notes/a b.md:3', '~/Заметки/кэш.md']);
    // A first folder with a space only where the path is the text's start, as kb writes one after a label.
    expect(paths('Inference Notes/KV cache.md:3: next_review: ...')).toEqual(['Inference Notes/KV cache.md:3']);
    expect(paths('see notes/kv-cache/paged-attention.md:12 now')).toEqual(['notes/kv-cache/paged-attention.md:12']);
    expect(paths('TPOT 1.02/1.02 ms/token, p50/p99 and FLOP/B, a / b')).toEqual([]);
  });

  it('keeps a Unicode path with spaces whole on its line in printed output: where it fits, and on a terminal always (it ran past a very narrow one rather than broken)', () => {
    const path = 'notes/推理 优化/预填 阶段.md'; // 29 cells
    for (let width = 20; width <= 60; width++) {
      for (const wholePaths of [true, false]) {
        if (!wholePaths && width < 31) continue; // piped, a path wider than the line under its label breaks, so every line fits
        const lines = fitLines(`frontmatter updated: ${path}`, width, { wholePaths }).split('\n');
        expect(lines.some((line) => line.trim() === path || line === `frontmatter updated: ${path}`), `width ${width}: ${JSON.stringify(lines)}`).toBe(true);
        const refused = fitLines(`frontmatter not written: ${path}: the file changed since it was read`, width, { wholePaths }).split('\n');
        expect(refused.some((line) => line.includes(path)), `width ${width}: ${JSON.stringify(refused)}`).toBe(true);
      }
    }
    expect(fitLines(`frontmatter updated: ${path}`, 39).split('\n')).toEqual(['frontmatter updated:', `  ${path}`]);
    expect(fitLines(`frontmatter updated: ${path}`, 24, { wholePaths: true }).split('\n')).toEqual(['frontmatter updated:', `  ${path}`]);
    // Piped (or on a screen), a path wider than its line still breaks rather than run past it.
    expect(fitLines(`frontmatter updated: ${path}`, 24).split('\n').every((line) => stringWidth(line) <= 24)).toBe(true);
    expect(wrapText(`it is ${path} here`, 30)).toEqual(['it is', path, 'here']);
  });

  it('starts no line with the space it broke at, when the line above fills the width exactly', () => {
    expect(wrapText('aaaa bbbb cccc', 4)).toEqual(['aaaa', 'bbbb', 'cccc']);
    expect(wrapText('abc 2 TB/s', 3)).toEqual(['abc', '2 T', 'B/s']);
  });

  it('ends a line at every newline and cuts a word wider than the line', () => {
    expect(wrapText('a\n\nb  c\r\nsupercalifragilistic', 8)).toEqual(['a', '', 'b  c', 'supercal', 'ifragili', 'stic']);
  });
});

const word = fc.oneof(
  fc.constantFrom('the', 'KV', 'cache', 'prefill', 'decode', 'throughput', 'TTFT', 'p95', 'batch-size', 'a/b', '(note)', 'verylongwordthatdoesnotfitanywhere'),
  fc.constantFrom('显存', '带宽', '预填充', '解码阶段', '每个', '的', '。', '，', '：', '（注）', '三步'),
  // After a space: glued to a word before it, a figure is part of one long word, cut anywhere.
  fc.constantFrom(' 2 TB/s', ' 20 ms', ' 3.35 TB/s', ' 4 GB', ' 128 tokens', ' 20毫秒', ' 1,024 MiB', ' 50%', ' 295 FLOP/B', ' -5 °C', ' p50/p99', ' GiB/序列'),
);
const separator = fc.constantFrom(' ', '', '  ', '\n', ' ');
const text = fc.array(fc.tuple(word, separator), { maxLength: 60 }).map((parts) => parts.map(([w, s]) => w + s).join(''));
const width = fc.oneof(fc.integer({ min: 8, max: 40 }), fc.constantFrom(80, 100, 120, 200));

describe('wrapText properties', () => {
  it('no line is wider than the width, and the lines are the text with only the spaces of breaks left out', () => {
    fc.assert(
      fc.property(text, width, (source, cells) => {
        const ranges = wrapRanges(source, cells);
        let at = 0;
        ranges.forEach(([start, end], index) => {
          expect(stringWidth(source.slice(start, end))).toBeLessThanOrEqual(cells);
          // Between two lines (and after the last) there is only what a break drops.
          expect(source.slice(at, start)).toMatch(index === 0 ? /^$/ : /^[ \t\u3000]*(?:\r?\n)?$/);
          at = end;
        });
        expect(source.slice(at)).toMatch(/^\s*$/);
      }),
      { numRuns: 400 },
    );
  });

  it('starts no line with a space the text did not start that line with', () => {
    fc.assert(
      fc.property(text, width, (source, cells) => {
        for (const [start, end] of wrapRanges(source, cells)) {
          if (start === 0 || source[start - 1] === '\n') continue;
          expect(source.slice(start, end)).not.toMatch(/^\s/);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("keeps what the property below found: a number inside a word is no figure; a slashed word's run spans a figure it touches", () => {
    // `p95 GiB`: `95` was kept with `GiB` while `thep95` was cut as one word (1 run in ~100,000).
    expect(unbreakableRanges('thep95 GiB/序列', 8).map(([start, end]) => 'thep95 GiB/序列'.slice(start, end))).toEqual(['GiB/序']);
    expect(unbreakableRanges('显存带宽为3.35 TB/s。').map(([start, end]) => '显存带宽为3.35 TB/s。'.slice(start, end))).toEqual(['3.35 TB/s']);
    // `2 TB/s(note)a/b` is one run of 15 cells: at 13, `a/b` cannot be kept apart from it.
    expect(unbreakableRanges(' 2 TB/s(note)a/b', 13)).toEqual([[1, 7]]);
  });

  it('never splits a number from its unit where the two fit a line', () => {
    fc.assert(
      fc.property(text, width, (source, cells) => {
        const ends = new Set(wrapRanges(source, cells).flatMap(([start, end]) => [start, end]));
        // The ranges kept whole at this width (a slashed word is kept only where its run of text fits it).
        for (const [start, end] of unbreakableRanges(source, cells)) {
          if (stringWidth(source.slice(start, end)) > cells) continue;
          for (let at = start + 1; at < end; at++) expect(ends.has(at)).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('wrapText on text that fits', () => {
  it('returns it whole, Chinese and English, up to exactly the width', () => {
    expect(wrapText('What limits decode throughput at batch size one?', 48)).toEqual(['What limits decode throughput at batch size one?']);
    expect(wrapText('什么是首字延迟？', 16)).toEqual(['什么是首字延迟？']);
    expect(wrapText('什么是首字延迟？', 15)).toEqual(['什么是首字延', '迟？']);
  });
});
