// kb quiz's source line at 80 columns: the tags give way, the " · " and the whole path stay
// (Ink's truncate-middle cut "prefill-decode · roofline, arithmetic-i…code/arithmetic-
// intensity-roofline.md:1" out of the tags and the path's start together; found as a user).
import stringWidth from 'string-width';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { quizSourceLine } from '../../src/ui/quiz/source-line.ts';
import { QuizScreen } from '../../src/ui/quiz/QuizScreen.tsx';
import { shows } from './ink-input.ts';
import { quizCard, SessionDriver } from './quiz-fixture.ts';

afterEach(() => cleanup());

const ROOFLINE = {
  deck: 'prefill-decode',
  tags: ['roofline', 'arithmetic-intensity', 'hardware', 'prefill', 'decode'],
  location: 'notes/prefill-decode/arithmetic-intensity-roofline.md:1',
};

describe('the quiz source line', () => {
  it('is whole where it fits', () => {
    expect(quizSourceLine('metrics', ['latency'], 'cards/metrics.md:4', 79)).toBe('metrics · latency · cards/metrics.md:4');
    expect(quizSourceLine('metrics', [], 'cards/metrics.md:4', 79)).toBe('metrics · cards/metrics.md:4');
    // A tag that names the deck says it twice ("kv-cache · kv-cache · cards/kv-cache.md:149"): left out.
    expect(quizSourceLine('kv-cache', ['kv-cache'], 'cards/kv-cache.md:149', 79)).toBe('kv-cache · cards/kv-cache.md:149');
    expect(quizSourceLine('kv-cache', ['paging', 'kv-cache'], 'cards/kv-cache.md:149', 79)).toBe('kv-cache · paging · cards/kv-cache.md:149');
  });

  it('shortens the tags first, keeping both separators and the whole path', () => {
    expect(quizSourceLine(ROOFLINE.deck, ROOFLINE.tags, ROOFLINE.location, 79)).toBe(`prefill-decode · roo… · ${ROOFLINE.location}`);
    expect(quizSourceLine(ROOFLINE.deck, ROOFLINE.tags, ROOFLINE.location, 100)).toBe(`prefill-decode · roofline, arithmetic-int… · ${ROOFLINE.location}`);
  });

  it('drops the tags, then shortens the deck, and cuts the path from its start only when it alone is too wide', () => {
    expect(quizSourceLine(ROOFLINE.deck, ROOFLINE.tags, ROOFLINE.location, 76)).toBe(`prefill-decode · ${ROOFLINE.location}`);
    expect(quizSourceLine(ROOFLINE.deck, ROOFLINE.tags, ROOFLINE.location, 60)).toBe(`p… · ${ROOFLINE.location}`);
    expect(quizSourceLine(ROOFLINE.deck, ROOFLINE.tags, ROOFLINE.location, 59)).toBe(ROOFLINE.location);
    expect(quizSourceLine(ROOFLINE.deck, ROOFLINE.tags, ROOFLINE.location, 30)).toBe('…metic-intensity-roofline.md:1');
  });

  it('measures Chinese tags in terminal cells (two each), and never splits a character', () => {
    const line = quizSourceLine('推理', ['预填充', '解码', '算术强度', '屋顶线模型', '硬件带宽'], 'notes/推理/屋顶线.md:1', 40);
    expect(stringWidth(line)).toBeLessThanOrEqual(40);
    expect(line).toMatch(/^推理 · 预填充.*… · notes\/推理\/屋顶线\.md:1$/);
    expect(stringWidth(line)).toBeGreaterThanOrEqual(39);
  });

  it('kb quiz at 80 columns shows the whole path after the shortened tags', async () => {
    const card = quizCard('r', { deck: ROOFLINE.deck, tags: ROOFLINE.tags, path: 'notes/prefill-decode/arithmetic-intensity-roofline.md', line: 1 });
    const app = render(<QuizScreen driver={new SessionDriver([card])} now={() => 0} />);
    Object.defineProperty(app.stdout, 'columns', { value: 80, configurable: true });
    app.stdout.emit('resize');
    const frame = await shows(app.lastFrame, 'Question r?');
    const source = frame.split('\n')[1];
    expect(source).toMatch(/^prefill-decode · roofline.*… · notes\/prefill-decode\/arithmetic-intensity-roofline\.md:1$/);
  });
});
