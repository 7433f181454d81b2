import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { LabProgressBar } from '../../src/ui/lab-progress.tsx';

describe('LabProgressBar', () => {
  it('shows the engine starting, then requests done / total', () => {
    const { lastFrame, rerender } = render(<LabProgressBar progress={null} />);
    expect(lastFrame()).toContain('starting the engine');
    rerender(
      <LabProgressBar
        progress={{ point: null, pointIndex: 0, points: 1, phase: 'measure', run: 1, runs: 2, requestsDone: 64, requestsTotal: 256, elapsedMs: 1500 }}
      />,
    );
    expect(lastFrame()).toMatch(/\[#+\.+\] 64\/256 requests · run 1\/2 · 1\.5 s/);
  });
});
