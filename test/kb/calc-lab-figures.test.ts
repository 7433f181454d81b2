import { describe, expect, it } from 'vitest';
import { calcAnswer, checkCalcAnswer, drawCalc, parseCalc } from '../../src/kb/calc.ts';
import { withLabFigures } from '../../src/kb/calc-figures.ts';
import { figureNotes } from '../../src/kb/calc-figure-notes.ts';
import { finishLabRun, startLabRun } from '../../src/store/lab-runs.ts';
import { openDatabase } from '../../src/store/db.ts';
import { drawQuestion, solutionText } from '../../src/app/quiz/quiz-session.ts';
import type { CalcSpec } from '../../src/model/knowledge-base.ts';

const block = `vars:
  tps: { lab: batch-size-sweep, metric: decode.tokens_per_s@1, fallback: 35 }
  n: { choose: [100] }
answer: n / tps
unit: s
`;

function spec(): CalcSpec {
  const parsed = parseCalc(block, 10, 'cards/x.md');
  expect(parsed.diagnostics).toEqual([]);
  return parsed.spec!;
}

const DAY = 86_400_000;
// A knowledge base with no lab/ of its own: kb's bundled labs are its labs.
const ROOT = '/nonexistent-kb';

function store(db: ReturnType<typeof openDatabase>, result: unknown, startedAt: number, backend = 'cpu', status: 'ok' | 'partial' = 'ok', settings: unknown = {}) {
  const id = startLabRun(db, { lab: 'batch-size-sweep', startedAt, settings, backend });
  finishLabRun(db, id, { status, finishedAt: startedAt + 1000, result });
  return id;
}

describe('lab-sourced kb-calc variables', () => {
  it('parse, and draw the fallback until a figure is filled in', () => {
    const s = spec();
    expect(s.vars[0]).toEqual({ name: 'tps', kind: 'lab', lab: 'batch-size-sweep', metric: 'decode.tokens_per_s@1', fallback: 35 });
    expect(calcAnswer(s, drawCalc(s, () => 0.5))).toBeCloseTo(100 / 35, 10);
  });

  it('refuse an unknown metric, a sweep metric at a point, a missing fallback and an unknown field, naming the line', () => {
    const bad = (v: string) => parseCalc(`vars:\n  x: ${v}\nanswer: x\n`, 4, 'cards/x.md').diagnostics.map((d) => `${d.line}: ${d.message}`);
    expect(bad('{ lab: batching, metric: nope.p50, fallback: 1 }')[0]).toMatch(/^6: kb-calc: x: metric: "nope\.p50" is not a lab metric; known metrics: add_request\.p50, /);
    // A typo gets the metric it was meant to be first, not only the list of all 90 (found as a user).
    expect(bad('{ lab: batching, metric: decode.tokenz_per_s@1, fallback: 1 }')[0]).toMatch(/^6: kb-calc: x: metric: "decode\.tokenz_per_s" is not a lab metric; did you mean decode\.tokens_per_s\? Known metrics: add_request\.p50, /);
    expect(bad('{ lab: load-sweep, metric: load.capacity_rps@1, fallback: 1 }')).toEqual(['6: kb-calc: x: metric: load.capacity_rps is one number per sweep; drop @1']);
    expect(bad('{ lab: batching, metric: ttft.p50 }')).toEqual(['6: kb-calc: x: fallback must be a number: the figure used until the learner has run the lab']);
    expect(bad('{ lab: Batching!, metric: ttft.p50, fallback: 1 }')).toEqual(['6: kb-calc: x: lab must be a lab name (lowercase letters, digits, -)']);
    expect(bad('{ lab: batching, metric: ttft.p50, fallback: 1, min: 2 }')).toEqual(['6: kb-calc: x: unknown field "min" (a lab figure has lab, metric, fallback)']);
  });

  it('with no stored run: the fallback, and the question says how to get the real figure', () => {
    const db = openDatabase(':memory:');
    const s = withLabFigures(spec(), db, Date.now(), ROOT)!;
    const question = drawQuestion({ id: 'c', kind: 'card', path: 'cards/x.md', line: 1, deck: 'x', front: 'n={n} at {tps} tok/s?', back: '', full: '', tags: [], lab: null, calc: s } as never, 0, () => 0)!;
    expect(question.expected).toBeCloseTo(100 / 35, 10);
    expect(question.prompt).toBe('n=100 at 35 tok/s?\n(tps: a typical figure: you have no complete run of batch-size-sweep on this machine yet; run kb lab batch-size-sweep for your own figure)');
  });

  it('with a stored run: the learner\'s figure, where it came from, and a back that says when the run did not reproduce', () => {
    const db = openDatabase(':memory:');
    const now = Date.now();
    store(db, { verdict: 'reproduced', points: [{ label: '1', metrics: { 'decode.tokens_per_s': 50 } }] }, now - 5 * DAY);
    // Newer, but a sim run (a prediction, not this machine) and a partial run: both passed over.
    const sim = store(db, { verdict: 'reproduced', points: [{ label: '1', metrics: { 'decode.tokens_per_s': 999 } }] }, now - DAY, 'sim');
    store(db, { verdict: 'incomplete', points: [] }, now - DAY / 2, 'cpu', 'partial');
    // "did not show this — why?" claimed the run failed to show the card's own point, whatever
    // expectation it missed, and never said which: the note names the expectations that failed.
    const checks = [
      { metric: 'decode.tokens_per_s@32 / decode.tokens_per_s@1', op: '>=', value: 8, say: 'the rate climbs with the batch', measured: 6.25, at: null, pass: false, problem: null },
      { metric: 'fit.exponent', op: '<=', value: 1, say: 'the curve flattens', measured: 0.8, at: null, pass: true, problem: null },
    ];
    const latest = store(db, { verdict: 'not reproduced', checks, points: [{ label: '1', metrics: { 'decode.tokens_per_s': 40 } }] }, now - 2 * DAY);
    const s = withLabFigures(spec(), db, now, ROOT)!;
    expect(calcAnswer(s, drawCalc(s, () => 0))).toBeCloseTo(100 / 40, 10);
    const notes = figureNotes(s);
    // The newer sim run is named, with why it was passed over: "your last" was another run.
    expect(notes.sources).toEqual([`tps: your batch-size-sweep of 2 days ago (run #${latest}); your last, run #${sim}, was a sim prediction`]);
    const note = `Your batch-size-sweep run #${latest} (2 days ago), which these figures come from, did not reproduce the lab: the rate climbs with the batch (decode.tokens_per_s@32 / decode.tokens_per_s@1 = 6.250; expected >= 8) did not hold. Why?`;
    expect(notes.notReproduced).toEqual([note]);
    const question = drawQuestion({ id: 'c', kind: 'card', path: 'cards/x.md', line: 1, deck: 'x', front: '{tps}?', back: 'Because.', full: '', tags: [], lab: null, calc: s } as never, 0, () => 0)!;
    expect(solutionText(question)).toBe(`Answer: 2.5 s\n\nBecause.\n\n${note}`);
  });

  it('says which run did not reproduce when the figures come from an older one than the last ("your last" was another run)', () => {
    const db = openDatabase(':memory:');
    const now = Date.now();
    const older = store(db, { verdict: 'not reproduced', points: [{ label: '1', metrics: { 'decode.tokens_per_s': 40 } }] }, now - 3 * DAY);
    const newest = store(db, { verdict: 'reproduced', points: [{ label: '8', metrics: { 'decode.tokens_per_s': 50 } }] }, now - DAY);
    const notes = figureNotes(withLabFigures(spec(), db, now, ROOT)!);
    expect(notes.sources).toEqual([`tps: your batch-size-sweep of 3 days ago (run #${older}); your last, run #${newest}, has no decode.tokens_per_s@1`]);
    // A run stored without its checks: no expectation to name.
    expect(notes.notReproduced).toEqual([`Your batch-size-sweep run #${older} (3 days ago), which these figures come from, did not reproduce the lab's expectations. Why?`]);
  });

  it('a run without the metric falls back and says so', () => {
    const db = openDatabase(':memory:');
    const id = store(db, { verdict: 'reproduced', points: [{ label: '8', metrics: { 'decode.tokens_per_s': 50 } }] }, Date.now() - 60_000);
    const s = withLabFigures(spec(), db, Date.now(), ROOT)!;
    expect(figureNotes(s).sources).toEqual([`tps: a typical figure: your last batch-size-sweep (run #${id}) has no decode.tokens_per_s@1; run kb lab batch-size-sweep for your own figure`]);
    expect(calcAnswer(s, drawCalc(s, () => 0))).toBeCloseTo(100 / 35, 10);
  });

  it('passes over runs whose settings contradict the question, and runs against a server', () => {
    const db = openDatabase(':memory:');
    const now = Date.now();
    const result = (tps: number) => ({ verdict: 'reproduced', points: [{ label: '1', metrics: { 'decode.tokens_per_s': tps } }] });
    // The lab as written (another backend of this machine and more repeats do not change the question).
    const own = store(db, result(50), now - 3 * DAY, 'webgpu', 'ok', { changed: [{ key: 'backend', value: 'webgpu' }, { key: 'repeats', value: 3 }] });
    // Newer: a --set of the workload and engine, a preset's model, and a server (--endpoint).
    store(db, result(111), now - 2 * DAY, 'cpu', 'ok', { changed: [{ key: 'engine.prefillMaxBatch', value: 256 }, { key: 'workload.requests', value: 64 }] });
    store(db, result(222), now - DAY, 'cpu', 'ok', { changed: [{ key: 'model', value: 'gpt2' }] });
    const server = store(db, result(333), now - DAY / 2, 'endpoint', 'ok', { changed: [], endpoint: { url: 'http://gpu:8000/v1', model: 'm', serverVersion: null, maxConcurrency: null } });
    const s = withLabFigures(spec(), db, now, ROOT)!;
    expect(calcAnswer(s, drawCalc(s, () => 0))).toBeCloseTo(100 / 50, 10);
    expect(figureNotes(s).sources).toEqual([`tps: your batch-size-sweep of 3 days ago (run #${own}); your last, run #${server}, measured a server (--endpoint)`]);
  });

  it('takes a --backend auto run, stored as the backend auto chose', () => {
    const db = openDatabase(':memory:');
    const now = Date.now();
    // Started as asked (auto), finished as what ran: this machine's cpu, the lab as written.
    const id = startLabRun(db, { lab: 'batch-size-sweep', startedAt: now - DAY, settings: { changed: [{ key: 'backend', value: 'auto' }] }, backend: 'auto' });
    finishLabRun(db, id, { status: 'ok', finishedAt: now - DAY + 1000, backend: 'cpu', result: { verdict: 'reproduced', points: [{ label: '1', metrics: { 'decode.tokens_per_s': 50 } }] } });
    const s = withLabFigures(spec(), db, now, ROOT)!;
    expect(calcAnswer(s, drawCalc(s, () => 0))).toBeCloseTo(100 / 50, 10);
    expect(figureNotes(s).sources).toEqual([`tps: your last batch-size-sweep, 24 hours ago (run #${id})`]);
  });

  it('does not call an older run "your last" when a newer one with --set was passed over (found as a user)', () => {
    // kb lab ttft-breakdown, then kb lab ttft-breakdown --set engine.prefillMaxBatch=256: the
    // card said "your last ttft-breakdown, just now (run #2)" with run #3 the last.
    const db = openDatabase(':memory:');
    const now = Date.now();
    const result = (tps: number) => ({ verdict: 'reproduced', points: [{ label: '1', metrics: { 'decode.tokens_per_s': tps } }] });
    const own = store(db, result(50), now - 120_000);
    const changed = store(db, result(111), now - 60_000, 'cpu', 'ok', { changed: [{ key: 'engine.prefillMaxBatch', value: 256 }] });
    const s = withLabFigures(spec(), db, now, ROOT)!;
    expect(calcAnswer(s, drawCalc(s, () => 0))).toBeCloseTo(100 / 50, 10);
    expect(figureNotes(s).sources).toEqual([`tps: your batch-size-sweep of 2 minutes ago (run #${own}); your last, run #${changed}, changed engine.prefillMaxBatch`]);
  });

  it('with only runs of other settings or a server: the fallback, saying why the latest was passed over', () => {
    const db = openDatabase(':memory:');
    const now = Date.now();
    const result = { verdict: 'reproduced', points: [{ label: '1', metrics: { 'decode.tokens_per_s': 111 } }] };
    const changed = store(db, result, now - DAY, 'cpu', 'ok', { changed: [{ key: 'engine.prefillMaxBatch', value: 256 }, { key: 'workload.requests', value: 64 }] });
    let s = withLabFigures(spec(), db, now, ROOT)!;
    expect(calcAnswer(s, drawCalc(s, () => 0))).toBeCloseTo(100 / 35, 10);
    expect(figureNotes(s).sources).toEqual([
      `tps: a typical figure: your last complete batch-size-sweep (run #${changed}) changed engine.prefillMaxBatch, workload.requests; run kb lab batch-size-sweep for your own figure`,
    ]);
    const server = store(db, result, now - 60_000, 'endpoint', 'ok', { changed: [], endpoint: { url: 'http://gpu:8000/v1' } });
    s = withLabFigures(spec(), db, now, ROOT)!;
    expect(calcAnswer(s, drawCalc(s, () => 0))).toBeCloseTo(100 / 35, 10);
    expect(figureNotes(s).sources).toEqual([
      `tps: a typical figure: your last complete batch-size-sweep (run #${server}) measured a server (--endpoint); run kb lab batch-size-sweep for your own figure`,
    ]);
  });

  it('a lab the knowledge base does not have: the fallback, without sending the learner to run it (found as a user)', () => {
    const db = openDatabase(':memory:');
    const missing = parseCalc(block.replace('batch-size-sweep', 'nolab'), 10, 'cards/x.md').spec!;
    const s = withLabFigures(missing, db, Date.now(), ROOT)!;
    expect(calcAnswer(s, drawCalc(s, () => 0))).toBeCloseTo(100 / 35, 10);
    expect(figureNotes(s).sources).toEqual(['tps: a typical figure: there is no lab named nolab (kb lab lists them)']);
  });
  it('computes the answer from the figures as the question prints them (found as a user)', () => {
    // A measured figure has a dozen decimals; the question prints 4 significant digits (2000,
    // 1001). The answer was computed from the raw floats, so on an absolute tolerance the
    // learner's sum from the printed figures (2000 - 1001 = 999) was marked wrong (999.99).
    const db = openDatabase(':memory:');
    store(db, { verdict: 'reproduced', points: [
      { label: '1', metrics: { 'decode.tokens_per_s': 2000.49 } },
      { label: '32', metrics: { 'decode.tokens_per_s': 1000.5 } },
    ] }, Date.now() - 60_000);
    const parsed = parseCalc(`vars:
  a: { lab: batch-size-sweep, metric: decode.tokens_per_s@1, fallback: 60 }
  b: { lab: batch-size-sweep, metric: decode.tokens_per_s@32, fallback: 700 }
answer: a - b
tolerance: 0.5
`, 10, 'cards/x.md');
    expect(parsed.diagnostics).toEqual([]);
    const s = withLabFigures(parsed.spec!, db, Date.now(), ROOT)!;
    const question = drawQuestion({ id: 'c', kind: 'card', path: 'cards/x.md', line: 1, deck: 'x', front: '{a} - {b}?', back: '', full: '', tags: [], lab: null, calc: s } as never, 0, () => 0)!;
    expect(question.prompt.split('\n')[0]).toBe('2000 - 1001?');
    expect(question.expected).toBe(999);
    expect(checkCalcAnswer(s, drawCalc(s, () => 0), 999)).toBe(true);
  });

  // Found as a user: `kb lab ttft-vs-length --points 16,32` stored a fit over two points, and
  // the your-machine card quoted it ("fitted TTFT ∝ length^0.6152 ... your last ttft-vs-length")
  // although that run's own report refused to judge its fit: over some points it is another curve.
  it('a sweep narrowed by --points gives no fit, knee or SLO limit: an older whole sweep does, saying why', () => {
    const db = openDatabase(':memory:');
    const now = Date.now();
    const all = ['16', '32', '64', '128', '256', '512', '768', '1023'];
    const sweepRun = (labels: string[], k: number, startedAt: number) => {
      const id = startLabRun(db, { lab: 'ttft-vs-length', startedAt, settings: { changed: [], sweep: { key: 'workload.promptTokens', labels } }, backend: 'cpu' });
      finishLabRun(db, id, { status: 'ok', finishedAt: startedAt + 1000, result: { verdict: 'reproduced', points: labels.map((label) => ({ label, metrics: { 'ttft.p50': 10 } })), sweepMetrics: { 'fit.exponent': k } } });
      return id;
    };
    const card = parseCalc('vars:\n  k: { lab: ttft-vs-length, metric: fit.exponent, fallback: 1.1 }\nanswer: 2 ^ k\n', 10, 'cards/x.md').spec!;
    const narrowed = sweepRun(['16', '32'], 0.6152, now - 60_000);
    let s = withLabFigures(card, db, now, ROOT)!;
    expect(drawCalc(s, () => 0).k).toBe(1.1);
    expect(figureNotes(s).sources).toEqual([
      `k: a typical figure: your last ttft-vs-length (run #${narrowed}) ran only points 16 and 32 (--points), so its fit.exponent describes another curve; run kb lab ttft-vs-length for your own figure`,
    ]);
    const whole = sweepRun(all, 1.08, now - 2 * DAY);
    s = withLabFigures(card, db, now, ROOT)!;
    expect(drawCalc(s, () => 0).k).toBe(1.08);
    expect(figureNotes(s).sources).toEqual([
      `k: your ttft-vs-length of 2 days ago (run #${whole}); your last, run #${narrowed}, ran only points 16 and 32 (--points), so its fit.exponent describes another curve`,
    ]);
  });

  // Found as a user: after `kb lab batch-size-sweep --points 1,2,4,8` a card asked for the ratio
  // of "323.6 tokens/s with one sequence and 700 tokens/s with 32": this machine's t1 over a
  // typical machine's t32, a ratio of two machines. A card's figures of one lab share one run.
  it('the figures one card takes from one lab come from one run, or are all the typical ones', () => {
    const db = openDatabase(':memory:');
    const now = Date.now();
    const card = parseCalc(`vars:
  t1: { lab: batch-size-sweep, metric: decode.tokens_per_s@1, fallback: 60 }
  t32: { lab: batch-size-sweep, metric: decode.tokens_per_s@32, fallback: 700 }
answer: t32 / t1
`, 10, 'cards/x.md').spec!;
    const point = (label: string, tps: number) => ({ label, metrics: { 'decode.tokens_per_s': tps } });
    const some = store(db, { verdict: 'not reproduced', points: [point('1', 323.6), point('8', 615.7)] }, now - 60_000);
    let s = withLabFigures(card, db, now, ROOT)!;
    expect(drawCalc(s, () => 0)).toMatchObject({ t1: 60, t32: 700 });
    expect(figureNotes(s).sources).toEqual([
      `t1, t32: a typical figure: your last batch-size-sweep (run #${some}) has no decode.tokens_per_s@32; run kb lab batch-size-sweep for your own figure`,
    ]);
    // The card's back says nothing of a run none of its figures came from.
    expect(figureNotes(s).notReproduced).toEqual([]);
    const whole = store(db, { verdict: 'reproduced', points: [point('1', 300), point('32', 5000)] }, now - 3 * DAY);
    s = withLabFigures(card, db, now, ROOT)!;
    expect(drawCalc(s, () => 0)).toMatchObject({ t1: 300, t32: 5000 });
    expect(figureNotes(s).sources).toEqual([
      `t1, t32: your batch-size-sweep of 3 days ago (run #${whole}); your last, run #${some}, has no decode.tokens_per_s@32`,
    ]);
  });
});
