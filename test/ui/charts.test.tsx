import { renderToString } from 'ink';
import { describe, expect, it } from 'vitest';
import { BarList } from '../../src/ui/charts/BarList.tsx';
import { columnLines, horizontalBar, shade } from '../../src/ui/charts/chart-text.ts';
import { Heatmap } from '../../src/ui/charts/Heatmap.tsx';

describe('charts', () => {
  it('draws bars in proportion, with eighth-cell precision', () => {
    expect(horizontalBar(10, 10, 8)).toBe('████████');
    expect(horizontalBar(5, 10, 8)).toBe('████');
    expect(horizontalBar(1, 16, 8)).toBe('▌');
    expect(horizontalBar(0, 10, 8)).toBe('');
  });

  it('draws columns from the bottom up, the tallest at full height', () => {
    const lines = columnLines([0, 4, 8], 2, 2);
    expect(lines).toEqual(['    █ ', '  █ █ ']);
    // One cell a column (the 30-day forecast under 68 columns): the bars fill their cells.
    expect(columnLines([0, 4, 8], 2, 1)).toEqual(['  █', ' ██']);
  });

  it('shades the heatmap from none to most', () => {
    expect([0, 1, 5, 10].map((count) => shade(count, 10))).toEqual(['·', '░', '▒', '█']);
    const out = renderToString(<Heatmap days={[{ day: '2026-11-16', count: 0 }, { day: '2026-11-17', count: 3 }]} />);
    expect(out.split('\n')[0]).toBe('Mon ·');
    expect(out.split('\n')[1]).toBe('Tue █');
  });

  it('labels bars and fits them to the width', () => {
    const out = renderToString(<BarList width={40} items={[{ label: 'new', value: 2 }, { label: 'review', value: 4 }]} />, { columns: 40 });
    expect(out).toContain('review │');
    expect(out.split('\n').every((line) => line.length <= 40)).toBe(true);
  });
});
