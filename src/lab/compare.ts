// `kb lab compare <run> <run>`: two stored runs side by side (any two, even of different
// labs): how they were run, what each measured at each point, and each expectation.
import type { LabRunRow } from '../store/lab-runs.ts';
import { comparedMetrics, percentChange, ranOn, shapesNotCompared, shapesNotComparedLine, startedAtText, settingsChanges, shownSweepMetrics, storedRunJson, storedVerdict, sweptRun, withFailedRequests, type StoredResult, type StoredSettings } from './history.ts';
import { formatMeasured, formatMetric, isSweepShapeMetric } from './metrics.ts';
import { meaningLines, sweepFigures, sweepWordRows } from './sweep-summary.ts';

function cell(name: string, value: number | undefined): string {
  return value === undefined ? '-' : formatMetric(name, value);
}

/** Rows of [what, run A, run B, change], aligned into columns. */
function table(rows: string[][]): string[] {
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => `  ${r.map((c, i) => (c ?? '').padEnd(widths[i])).join('  ').trimEnd()}`);
}

export function compareText(a: LabRunRow, b: LabRunRow): string {
  const ra = (a.result ?? {}) as StoredResult;
  const rb = (b.result ?? {}) as StoredResult;
  // Short fields in columns; where each ran (an endpoint's URL and model can be long) and each
  // expectation (a sentence) on lines of their own, so the columns stay narrow enough for 80.
  const head: string[][] = [
    ['', `#${a.id}`, `#${b.id}`],
    ['lab', a.lab, b.lab],
    ['started', startedAtText(a.startedAt), startedAtText(b.startedAt)],
    ['status', a.status, b.status],
    // As kb lab history shows it: a lab without expectations has none (its old runs stored "reproduced").
    ['verdict', storedVerdict(a.result) ?? '-', storedVerdict(b.result) ?? '-'],
  ];
  const out = [`Runs #${a.id} and #${b.id} side by side${a.lab === b.lab ? '' : ' (different labs)'}:`, ...table(head)];
  out.push(`  #${a.id} ran on ${ranOn(a)}`, `  #${b.id} ran on ${ranOn(b)}`);
  const changes = settingsChanges(a.settings as StoredSettings, b.settings as StoredSettings);
  out.push('', 'Settings that differ:', ...(changes.length > 0 ? changes.map((line) => `  ${line}`) : ['  none']));

  const names = withFailedRequests([...new Set([...comparedMetrics(ra), ...comparedMetrics(rb)])], ...[...(ra.points ?? []), ...(rb.points ?? [])].map((p) => p.metrics));
  const pointsA = new Map((ra.points ?? []).map((p) => [p.label, p]));
  const pointsB = new Map((rb.points ?? []).map((p) => [p.label, p]));
  const labels = [...new Set([...pointsA.keys(), ...pointsB.keys()])];
  const shown = new Set<string>();
  for (const label of labels) {
    const pa = pointsA.get(label);
    const pb = pointsB.get(label);
    out.push('', label === null ? 'Metrics:' : `At ${label}:`);
    out.push(
      ...table(
        names
          .filter((name) => pa?.metrics[name] !== undefined || pb?.metrics[name] !== undefined)
          .map((name) => {
            shown.add(name);
            const x = pa?.metrics[name];
            const y = pb?.metrics[name];
            return [name, cell(name, x), cell(name, y), x !== undefined && y !== undefined ? percentChange(x, y) : ''];
          }),
      ),
    );
  }
  // The knee and the SLO as the swept values they fall at (knee.index, a place among the
  // points, read as a measurement), then the sweep's figures with their units.
  const why = shapesNotCompared(a, b);
  const shapeNames = [...new Set([...shownSweepMetrics(ra), ...shownSweepMetrics(rb)])];
  const sweepNames = sweepFigures(shapeNames).filter((name) => why === null || !isSweepShapeMetric(name));
  const words = sweepWordRows(sweptRun(a), sweptRun(b), why === null);
  // Said where either run has such a figure: the learner may look for it.
  const notCompared = why !== null && shapeNames.some(isSweepShapeMetric) ? [shapesNotComparedLine(why)] : [];
  if (sweepNames.length > 0 || words.length > 0 || notCompared.length > 0) {
    out.push('', 'Across the sweep:');
    out.push(
      ...table([
        ...words.map((row) => [row.name, row.a ?? '-', row.b ?? '-', row.values ? percentChange(...row.values) : '']),
        ...sweepNames.map((name) => {
          const x = ra.sweepMetrics?.[name];
          const y = rb.sweepMetrics?.[name];
          return [name, cell(name, x), cell(name, y), x !== undefined && y !== undefined ? percentChange(x, y) : ''];
        }),
      ]),
      ...notCompared,
    );
  }
  // What slo.met_fraction and slo.goodput_rps count, under the SLO they are counted against.
  const meanings = meaningLines(shown);
  if (meanings.length > 0) out.push(...(words.length > 0 || sweepNames.length > 0 ? [] : ['']), ...meanings);
  const says = [...new Set([...(ra.checks ?? []), ...(rb.checks ?? [])].map((c) => c.say))];
  if (says.length > 0) {
    out.push('', 'Expectations:');
    const mark = (checks: StoredResult['checks'], say: string) => {
      const c = checks?.find((check) => check.say === say);
      if (!c) return '-';
      return `${c.pass === null ? '?' : c.pass ? '✓' : '✗'} ${c.measured === null ? '?' : formatMeasured(c.metric, c.measured)}`;
    };
    for (const say of says) out.push(`  ${say}`, `    #${a.id} ${mark(ra.checks, say)}  #${b.id} ${mark(rb.checks, say)}`);
  }
  return `${out.join('\n')}\n`;
}

export function compareJson(a: LabRunRow, b: LabRunRow): unknown {
  return {
    runs: [a, b].map(storedRunJson),
    settingsChanged: settingsChanges(a.settings as StoredSettings, b.settings as StoredSettings),
  };
}
