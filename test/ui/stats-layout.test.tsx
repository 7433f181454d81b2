// kb stats keeps every row on one line (issue #13, item 9): a bar at 100% leaves room for its
// "100.0% of 3", at 80 and 120 columns and at the 80 columns of a pipe.
import { renderToString } from 'ink';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { BarList } from '../../src/ui/charts/BarList.tsx';
import { ColumnChart } from '../../src/ui/charts/ColumnChart.tsx';
import { statsText } from '../../src/ui/charts/StatsView.tsx';
import type { StatsReport } from '../../src/app/stats/stats-report.ts';

function report(): StatsReport {
  const day = (offset: number) => new Date(Date.UTC(2026, 10, 25 + offset)).toISOString().slice(0, 10);
  return {
    generatedAt: '2026-11-25T12:00:00.000Z',
    counts: { new: 120, learning: 3, review: 1234, relearning: 2, suspended: 0, buried: 1, total: 1360 },
    forecast: Array.from({ length: 30 }, (_, i) => ({ day: day(i), count: i === 0 ? 250 : i % 5 })),
    reviewsPerDay: Array.from({ length: 84 }, (_, i) => ({ day: day(i - 83), count: i % 7 })),
    retention: Array.from({ length: 12 }, (_, i) => ({ week: day(i * 7 - 84), reviews: i === 11 ? 3 : 120, passed: i === 11 ? 3 : 100, retention: i === 11 ? 1 : 100 / 120 })),
    overallRetention: 0.934,
    stability: [{ label: '< 1d', count: 10 }, { label: '1-7d', count: 100 }],
    difficulty: [{ label: '1-2', count: 4 }, { label: '9-10', count: 40 }],
    quizAccuracy: [
      { tag: 'metrics', asked: 3, correct: 3, accuracy: 1 },
      { tag: 'a-rather-long-tag-name-for-continuous-batching', asked: 12, correct: 5, accuracy: 5 / 12 },
    ],
  } as unknown as StatsReport;
}

describe('kb stats layout', () => {
  it('counts the quiz tags past the twelve it draws (one went unsaid; found as a user)', () => {
    const many = { ...report(), quizAccuracy: Array.from({ length: 13 }, (_, i) => ({ tag: `tag-${i}`, asked: 2, correct: 1, accuracy: 0.5 })) };
    const text = statsText(many as StatsReport, 100);
    expect(text).toContain('tag-11');
    expect(text).not.toContain('tag-12');
    expect(text).toContain('and 1 more (kb stats --json lists every tag)');
  });

  it('says "1 card" and "1 review" in the section titles (they said "1 cards", "1 reviews")', () => {
    const one = {
      ...report(),
      forecast: report().forecast.map((day, i) => ({ ...day, count: i === 3 ? 1 : 0 })),
      reviewsPerDay: report().reviewsPerDay.map((day, i) => ({ ...day, count: i === 83 ? 1 : 0 })),
    };
    const text = statsText(one as StatsReport, 80);
    expect(text).toContain('Due in the next 30 days (1 card; today includes overdue)');
    expect(text).toContain('Reviews per day, last 12 weeks (1 review)');
    expect(statsText(report(), 80)).toMatch(/\(\d+ cards; today includes overdue\)[\s\S]*last 12 weeks \(\d+ reviews\)/);
  });

  it('keeps a full bar and its "100.0% of N" on one line', () => {
    const items = [{ label: 'w1', value: 1, text: '100.0% of 3' }, { label: 'w2', value: 0.5, text: '50.0% of 1234' }];
    for (const width of [40, 80, 120]) {
      const lines = renderToString(<BarList width={width} items={items} />, { columns: width }).split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/█ 100\.0% of 3$/);
      for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(width);
    }
  });

  it('draws no row wider than the width, so nothing wraps, at 80, 100 and 120 columns', () => {
    for (const width of [80, 100, 120]) {
      const lines = statsText(report(), width).split('\n');
      for (const line of lines) expect(stringWidth(line), `${width}: ${line}`).toBeLessThanOrEqual(width);
      expect(lines.some((line) => /^\s*\d+\s*$/.test(line)), 'a count alone on a line').toBe(false);
      expect(lines.some((line) => line.includes('100.0% of 3'))).toBe(true);
    }
  });

  it('labels the forecast\'s scale once each end: an empty forecast is a line, and a chart of zeros has one "0"', () => {
    const none = { ...report(), forecast: report().forecast.map((day) => ({ ...day, count: 0 })) };
    const text = statsText(none as StatsReport, 80);
    expect(text).toContain('No card falls due in the next 30 days.');
    expect(text).not.toContain('└');
    const zeros = renderToString(<ColumnChart values={[0, 0, 0]} height={4} columnWidth={2} axis="today" />, { columns: 40 });
    expect(zeros.split('\n').filter((line) => /^\s*0 │/.test(line))).toHaveLength(1);
    const some = renderToString(<ColumnChart values={[0, 3, 1]} height={4} columnWidth={2} axis="today" />, { columns: 40 }).split('\n');
    expect([some[0]!.slice(0, 3), some[3]!.slice(0, 3)]).toEqual(['3 │', '0 │']);
  });
});
