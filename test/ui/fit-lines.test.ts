// Printed reports wrapped to the terminal line by line (kb lab's report, its history, kb scan).
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { fitLines } from '../../src/ui/text/fit-lines.ts';

describe('fitLines', () => {
  it('leaves lines that fit, and wraps a long one under its label, between its fields', () => {
    const report = [
      'Requests: 256',
      'Scheduler: continuous  max batched tokens 4096  max seqs 256  prefill admission 16/step  chunk off  KV paged',
      'Throughput (completion,total): 129859.69, 194789.53 tokens/s  8116.23 requests/s',
    ].join('\n');
    expect(fitLines(report, 60).split('\n')).toEqual([
      'Requests: 256',
      'Scheduler: continuous  max batched tokens 4096  max seqs 256',
      '           prefill admission 16/step  chunk off  KV paged',
      'Throughput (completion,total): 129859.69, 194789.53 tokens/s',
      '                               8116.23 requests/s',
    ]);
  });

  it('puts the figures under a long label on a narrow terminal, rather than cut a figure in two', () => {
    const report = ['Queue wait p50/p95/p99: 7.61/15.25/15.25 ms', 'Throughput (completion,total): 129859.69, 194789.53 tokens/s  8116.23 requests/s', 'TTFT p50/p95/p99: 8.63/16.27/16.27 ms'].join('\n');
    expect(fitLines(report, 39).split('\n')).toEqual([
      'Queue wait p50/p95/p99:',
      '  7.61/15.25/15.25 ms',
      'Throughput (completion,total):',
      '  129859.69, 194789.53 tokens/s',
      '  8116.23 requests/s',
      'TTFT p50/p95/p99: 8.63/16.27/16.27 ms',
    ]);
  });

  it('wraps an indented line without fields under its indent, Chinese text by its cells', () => {
    const line = '  continuous, prefillMaxBatch 16, maxNumSeqs 256, maxBatchedTokens 4096, chunk off, block 16, 连续批处理与分页 KV 缓存';
    const lines = fitLines(line, 50).split('\n');
    expect(lines.length).toBeGreaterThan(2);
    for (const l of lines) {
      expect(stringWidth(l)).toBeLessThanOrEqual(50);
      expect(l.startsWith('  ')).toBe(true);
    }
    expect(lines.map((l) => l.trim()).join(' ').replace(/ (?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff]) /g, '')).toBe(line.trim().replace(/ (?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff]) /g, ''));
  });

  it('wraps a lab expectation under its first word, not under its mark', () => {
    const line = '  ✓ paged blocks keep at least 4x as many sequences running, on average, in the same memory';
    expect(fitLines(line, 79).split('\n')).toEqual(['  ✓ paged blocks keep at least 4x as many sequences running, on average, in the', '    same memory']);
  });

  it('takes no sentence with an open bracket for a label (it hung the wrap 36 columns in)', () => {
    const line = 'Runs of lab load-sweep (Load sweep: TTFT p95 and goodput vs offered load), newest first:';
    expect(fitLines(line, 79).split('\n')).toEqual(['Runs of lab load-sweep (Load sweep: TTFT p95 and goodput vs offered load),', 'newest first:']);
    // A label with its unit in brackets still is one.
    expect(fitLines('TTFT (ms): 12.5  13.1  14.2  15.9  17.0  18.3  19.9  21.4  22.8  24.0  25.5  27.1', 40).split('\n')[1]).toMatch(/^ {11}\S/);
  });

  it('breaks parts joined by " · " between parts, the separator left out at the break (a history line started with "· throughput")', () => {
    const line = '        queue_wait.p99 5200.0 ms · ttft.p99 5800.0 ms · prefill_first.p99 206.7 ms · throughput.output_tps 1266.0 tokens/s';
    const lines = fitLines(line, 79).split('\n');
    expect(lines).toEqual(['        queue_wait.p99 5200.0 ms · ttft.p99 5800.0 ms', '        prefill_first.p99 206.7 ms · throughput.output_tps 1266.0 tokens/s']);
  });

  it('wraps an expectation painted whole (green on a terminal) as the plain one, each row painted: the terminal cut "(exponent at least 1.0" / "5)"', () => {
    const say = '✓ over the longer half, TTFT grows faster than linearly (exponent at least 1.05)';
    const painted = `  \u001b[32m${say}\u001b[39m`;
    const plain = fitLines(`  ${say}`, 79).split('\n');
    expect(plain).toEqual(['  ✓ over the longer half, TTFT grows faster than linearly (exponent at least', '    1.05)']);
    const lines = fitLines(painted, 79).split('\n');
    expect(lines).toEqual(plain.map((row) => row.replace(/^(\s*)(.*)$/, '$1\u001b[32m$2\u001b[39m')));
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(79);
  });

  it('leaves a line with colour codes inside it whole', () => {
    const coloured = `\u001b[32m✓\u001b[39m ${'a very long check name '.repeat(5)}`;
    expect(fitLines(coloured, 40)).toBe(coloured);
  });
});
