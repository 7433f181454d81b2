// The lab report in kb review's and kb quiz's panel at a narrow width (found as a user at 40
// columns: a check's measured line wrapped one column deeper, Ink's wrap keeping the space it
// broke at; and the footer broke "kb lab history" from its lab's name).
import { renderToString } from 'ink';
import { describe, expect, it } from 'vitest';
import type { CardLabOutcome } from '../../src/app/card-labs/card-labs.ts';
import { CardLabPanel, panelFooter, type CardLabControl } from '../../src/ui/card-lab-panel.tsx';

const outcome = {
  lab: 'ttft-breakdown',
  title: 'TTFT breakdown',
  status: 'partial' as const,
  verdict: 'incomplete' as const,
  checks: [{ say: 'queue wait is at least 80% of TTFT p99', measured: 'queue_wait.p99 / ttft.p99 = ? (the run was interrupted before every request finished); expected >= 0.8', pass: null }],
  figures: [],
  chart: [],
  note: null,
  runId: 7,
};

function panel(width: number, shown: CardLabOutcome = outcome): string[] {
  const control: CardLabControl = { state: { phase: 'done', lab: 'ttft-breakdown', outcome: shown }, scroll: 0, setMaxScroll: () => {}, open: () => null, key: () => {}, runs: 1 };
  return renderToString(<CardLabPanel control={control} height={30} width={width} />, { columns: width + 1 }).split('\n');
}

describe('the lab panel at 40 columns', () => {
  it('wraps a check\'s measured line under its start, and keeps each command whole', () => {
    const lines = panel(39);
    const measured = lines.filter((line) => line.startsWith('    ') && line.trim() !== '' && !line.includes('kb lab'));
    expect(measured.length).toBeGreaterThan(1);
    for (const line of measured) expect(line).toMatch(/^ {4}\S/);
    // One list of commands: the second under the first, not a bare line of its own.
    const footer = lines.join('\n');
    expect(footer).toContain('Run #7 stored (partial).\nMore: kb lab show ttft-breakdown\n      kb lab history ttft-breakdown');
  });
});

describe('the lab panel at 80 columns (the prefix-cache lab, found as a user)', () => {
  const prefixCache = {
    ...outcome,
    lab: 'prefix-cache',
    status: 'ok' as const,
    verdict: 'reproduced' as const,
    checks: [{ say: 'with the cache on, at least 80% of prompt tokens are served from cached blocks', measured: 'kv.prefix_hit_rate@true = 0.930; expected >= 0.8', pass: true }],
    runId: 1,
  };

  it('wraps an expectation under its text, not under its mark', () => {
    const lines = panel(79, prefixCache);
    const at = lines.findIndex((line) => line.startsWith('✓ with the cache on'));
    expect(lines.slice(at, at + 3)).toEqual([
      '✓ with the cache on, at least 80% of prompt tokens are served from cached',
      '  blocks',
      '    kv.prefix_hit_rate@true = 0.930; expected >= 0.8',
    ]);
  });

  it('ends no footer row with its separator', () => {
    const lines = panel(79, prefixCache);
    expect(lines.join('\n')).toContain('Run #1 stored (ok).\nMore: kb lab show prefix-cache · kb lab history prefix-cache\n');
    // Wide enough, all on one row.
    expect(panel(100, prefixCache).join('\n')).toContain('Run #1 stored (ok). More: kb lab show prefix-cache · kb lab history prefix-cache\n');
    for (const line of lines) expect(line.trimEnd()).not.toMatch(/ ·$/);
  });
});

describe('the lab panel\'s verdict', () => {
  it('is worded as kb lab words it', () => {
    // The panel said "0 of 1 expectations could be judged" where the CLI said "1 of 1 ... could not be judged".
    expect(panel(79).join('\n')).toContain('Verdict: incomplete (1 of 1 expectations could not be judged)');
  });
});

describe('the lab panel\'s chart at 80 columns (load-sweep, found as a user)', () => {
  it('wraps a chart note wider than the panel under its label, as kb lab prints it', () => {
    // Ink wrapped it, starting the next row with the space it broke at: ' it: 0.500'.
    const loadSweep = {
      ...outcome,
      lab: 'load-sweep',
      chart: ['  ● ttft.p95   ─ SLO 38 ms   ▼ knee at 1', '  SLO: ttft.p95 <= 38 ms; highest workload.rate / capacity (72.9 req/s) meeting it: 0.500'],
    };
    const lines = panel(79, loadSweep);
    const at = lines.findIndex((line) => line.startsWith('  SLO: '));
    expect(lines.slice(at, at + 2)).toEqual(['  SLO: ttft.p95 <= 38 ms; highest workload.rate / capacity (72.9 req/s) meeting', '       it: 0.500']);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(79);
  });
});

describe("the lab panel's keys", () => {
  it('says j and k scroll the report, as they do, and any other key goes back (found as a user)', () => {
    expect(panel(79).at(-1)?.trimEnd() || panel(79).at(-2)?.trimEnd()).toBe('j k, arrows, PgUp PgDn scroll · any other key: back to the card');
    expect(panelFooter(39)).toBe('j k scroll · other keys: back');
    expect(panel(39).some((line) => line.trimEnd() === 'j k scroll · other keys: back')).toBe(true);
  });
});
