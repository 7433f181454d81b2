// The review screen's top line stays one line at any width: a narrow terminal (a phone's SSH
// app, 40-50 columns) drops the title, then shortens the labels, then cuts the counts.
import { cleanup, render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { Header } from '../../src/ui/review/Header.tsx';

afterEach(cleanup);

const counts = { done: 12, new: 20, learning: 3, review: 148 };
const header = (width: number) => render(<Header counts={counts} elapsedMs={83_000} width={width} />).lastFrame()!;

describe('the review header', () => {
  it('is one line that ends with the clock at every width', () => {
    for (const width of [200, 80, 60, 50, 45, 40, 34, 30, 24]) {
      const frame = header(width);
      expect(frame.split('\n'), `width ${width}`).toHaveLength(1);
      expect(stringWidth(frame), `width ${width}`).toBeLessThanOrEqual(width);
      expect(frame.trimEnd(), `width ${width}`).toMatch(/ 01:23$/);
    }
  });

  it('drops the title first, then shortens the labels', () => {
    expect(header(80)).toMatch(/^kb review {2}done 12 {2}new 20 {2}learning 3 {2}review 148 +01:23$/);
    expect(header(50)).toMatch(/^done 12 {2}new 20 {2}learning 3 {2}review 148 +01:23$/);
    expect(header(40)).toMatch(/^done 12 {2}new 20 {2}lrn 3 {2}rev 148 +01:23$/);
  });
});
