import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressLine, type LabProgress } from '../../src/lab/progress.ts';
import { textProgress } from '../../src/ui/lab-progress-text.ts';

const at = (requestsDone: number, extra: Partial<LabProgress> = {}): LabProgress => ({
  point: null,
  pointIndex: 0,
  points: 1,
  phase: 'measure',
  run: 1,
  runs: 1,
  requestsDone,
  requestsTotal: 256,
  elapsedMs: 4200,
  ...extra,
});

describe('lab progress', () => {
  it('draws a bar with requests done / total and elapsed time, within the width', () => {
    const line = progressLine(at(128), 80);
    expect(line).toMatch(/^\[#+\.+\] 128\/256 requests · run 1\/1 · 4\.2 s$/);
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line.split('#').length - 1).toBe(line.split('.').length - 1 - 1); // half full (one '.' in "4.2")
    expect(progressLine(at(0, { phase: 'warmup', point: '16', points: 3, pointIndex: 1 }), 120)).toContain('warm-up 1/1 · point 16 (2/3)');
    expect(progressLine(at(256), 30).length).toBeLessThanOrEqual(30);
    // A sweep's point says which setting its label is the value of.
    const onOff = progressLine(at(0, { point: 'true', sweepKey: 'engine.prefixCaching', points: 2, pointIndex: 1 }), 120);
    expect(onOff).toContain('run 1/1 · prefixCaching=true (2/2)');
    expect(onOff).not.toContain('point true');
  });

  it('keeps the clock when the line is too wide: the point\'s name gives way', () => {
    // kb lab calibrate on an 80-column terminal (77 for the bar) ended "... (12/15) · 3": the time was cut.
    const calibrate = at(256, { point: 'decode x256 @16', sweepKey: 'calibrate', points: 15, pointIndex: 11, elapsedMs: 3400 });
    const line = progressLine(calibrate, 77);
    expect(line.length).toBeLessThanOrEqual(77);
    expect(line).toBe('[#############] 256/256 · run 1/1 · calibrate=decode x256 @16 (12/15) · 3.4 s');
    // Narrower still, the end of the point's name gives way too.
    const narrow = progressLine(calibrate, 60);
    expect(narrow).toBe('[##########] 256/256 · run 1/1 · calibrate=… (12/15) · 3.4 s');
  });

  it('on a pipe, writes one line per run as it ends, and nothing per request', () => {
    const piped = (now?: () => number) => {
      const stream = new PassThrough() as unknown as NodeJS.WriteStream;
      const out = { text: '' };
      (stream as unknown as PassThrough).on('data', (chunk: Buffer) => (out.text += chunk.toString()));
      return { sink: textProgress(stream, now), out };
    };
    const { sink, out } = piped();
    for (let done = 0; done <= 256; done += 16) sink.update(at(done, { phase: 'warmup' }));
    // A run that ends short of its total (rejected requests) is written when the next one starts.
    for (let done = 0; done <= 240; done += 16) sink.update(at(done, { point: 'a', points: 2 }));
    for (let done = 0; done <= 256; done += 16) sink.update(at(done, { point: 'b', points: 2, pointIndex: 1 }));
    sink.done();
    const lines = out.text.trim().split('\n');
    expect(lines.map((line) => line.match(/ (\d+)\/256 requests · (\S+)/)?.slice(1).join(' '))).toEqual(['256 warm-up', '240 run', '256 run']);
    for (const line of lines) expect(line.length).toBeLessThan(80);
    // Stopped midway (Ctrl-C): the log says where.
    const stopped = piped();
    for (let done = 0; done <= 64; done += 16) stopped.sink.update(at(done));
    stopped.sink.done();
    expect(stopped.out.text).toMatch(/^\[#+\.+\] 64\/256 requests · run 1\/1 · 4\.2 s\n$/);
    // Stopped before any request finished: the clock reads the time of the stop, as the
    // terminal's bar does, not the run's start (the log said "0/256 requests · 0.0 s").
    let clock = 1000;
    const early = piped(() => clock);
    early.sink.update(at(0, { elapsedMs: 0 }));
    clock = 2400;
    early.sink.done();
    expect(early.out.text).toMatch(/^\[\.+\] 0\/256 requests · run 1\/1 · 1\.4 s\n$/);
  });

  it('on a terminal, redraws in place at most every 100 ms and clears at the end', () => {
    let text = '';
    let clock = 0;
    const stream = { isTTY: true, columns: 60, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
    const sink = textProgress(stream, () => clock);
    sink.update(at(1));
    clock = 50;
    sink.update(at(2)); // too soon: skipped
    clock = 150;
    sink.update(at(3));
    sink.update(at(256)); // the last one always shows
    sink.done();
    const draws = text.split('\r\x1b[2K').filter(Boolean);
    expect(draws.map((d) => d.match(/(\d+)\/256/)?.[1])).toEqual(['1', '3', '256']);
    expect(text.endsWith('\r\x1b[2K')).toBe(true);
  });

  it('frozen at a Ctrl-C: drawn once with the clock at the stop, then left as it is (its clock ran on while a webgpu engine started)', () => {
    let text = '';
    let clock = 0;
    const stream = { isTTY: true, columns: 60, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
    const sink = textProgress(stream, () => clock);
    sink.update(at(0, { elapsedMs: 0 }));
    clock = 3000;
    sink.freeze();
    expect(text.split('\r\x1b[2K').filter(Boolean).at(-1)).toMatch(/ 0\/256 requests · run 1\/1 · 3\.0 s$/);
    const frozen = text;
    clock = 9000;
    sink.update(at(5));
    sink.freeze();
    sink.done();
    // Nothing more: no redraw, and the bar is not cleared from above the stop's message.
    expect(text).toBe(frozen);
    // On a pipe, the line of the run where it stopped, once.
    let piped = '';
    const pipe = { isTTY: false, write: (chunk: string) => ((piped += chunk), true) } as unknown as NodeJS.WriteStream;
    const log = textProgress(pipe, () => 0);
    log.update(at(16));
    log.freeze();
    log.update(at(32));
    log.done();
    expect(piped).toMatch(/^\[#+\.+\] 16\/256 requests · run 1\/1 · 4\.2 s\n$/);
  });

  it('on a terminal of 80 columns, leaves the last column free and room for an echoed ^C', () => {
    let text = '';
    const stream = { isTTY: true, columns: 80, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
    const sink = textProgress(stream, () => 0);
    // The longest lines: a full bar, a warm-up, a sweep point, minutes on the clock.
    sink.update(at(256, { phase: 'warmup', elapsedMs: 75_000 }));
    sink.update(at(256, { point: '256', sweepKey: 'engine.prefillMaxBatch', points: 3, pointIndex: 2, elapsedMs: 754_000 }));
    sink.done();
    const draws = text.split('\r\x1b[2K').filter(Boolean);
    expect(draws).toHaveLength(2);
    // The cursor ends at the bar's end: "^C" there must still fit the row (80 - 2 columns).
    for (const draw of draws) expect(draw.length, draw).toBeLessThanOrEqual(77);
  });
});
