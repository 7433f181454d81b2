import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDuration, parseTypedAnswer, unitMeaning } from '../../src/app/quiz/quiz-units.ts';

function value(text: string, unit: string | null): number {
  const parsed = parseTypedAnswer(text, unit);
  if (!parsed.ok) throw new Error(`${text} [${unit}]: ${parsed.message}`);
  return parsed.value;
}

function refusal(text: string, unit: string | null): string {
  const parsed = parseTypedAnswer(text, unit);
  if (parsed.ok) throw new Error(`${text} [${unit}] was read as ${parsed.value}`);
  return parsed.message;
}

describe('typed answers: numbers', () => {
  it.each([
    ['20', 20],
    ['  20  ', 20],
    ['-3.5', -3.5],
    ['\u22123.5', -3.5],
    // Found as a user: a plus sign read as a minus, so "+20" was graded as -20.
    ['+20', 20],
    ['.5', 0.5],
    ['1.5e3', 1500],
    ['2E-3', 0.002],
    ['1,024', 1024],
    ['1,234,567.5', 1234567.5],
    ['1_000', 1000],
  ])('%s is %d', (text, expected) => {
    expect(value(text, null)).toBe(expected);
  });

  it('refuses what is not a number, with a reason', () => {
    expect(refusal('', 'ms')).toMatch(/type a number/);
    expect(refusal('abc', 'ms')).toMatch(/not a number/);
    expect(refusal('0,5', null)).toMatch(/decimals with a dot/);
    // Found as a user: "0,025 s" (a decimal comma) was read as 25 thousands-grouped, i.e.
    // 25 s, and a right TPOT of 25 ms was graded wrong. A group of thousands never starts with 0.
    expect(refusal('0,025 s', 'ms')).toMatch(/decimals with a dot/);
    expect(refusal('0,025', 'ms')).toMatch(/decimals with a dot/);
    expect(refusal('00,500', null)).toMatch(/decimals with a dot/);
    expect(refusal('1e999', null)).toMatch(/too large/);
  });
});

describe('typed answers: full-width characters (a Chinese or Japanese input method)', () => {
  // Found as a user: with a Chinese input method on, "２５ｍｓ" was "not a number" (kb quiz
  // --json) and the terminal screens dropped its digits without a word.
  it.each([
    ['\uff12\uff15', 'ms', 25],
    ['\uff12\uff15\uff4d\uff53', 'ms', 25],
    ['\uff10\uff0e\uff10\uff12\uff15\u3000\uff53', 'ms', 25],
    ['\uff15\uff10\uff05', '%', 50],
    ['\uff12\uff0c\uff10\uff14\uff18', 'KiB', 2048],
    ['\uff0d\uff13', null, -3],
    // The full stop of a Chinese punctuation mode, typed for the point ("45。71" was refused).
    ['45\u300271', 'ms', 45.71],
    ['0\u3002025\u79d2', 'ms', 25],
  ])('%s [%s] is %d', (text, unit, expected) => {
    expect(value(text, unit)).toBe(expected);
  });
});

describe('typed answers: units', () => {
  it.each([
    ['20ms', 'ms', 20],
    ['20 ms', 'ms', 20],
    ['0.5s', 'ms', 500],
    ['0.02 s', 'ms', 20],
    ['20000 us', 'ms', 20],
    ['20000 µs', 'ms', 20],
    ['20000 μs', 'ms', 20],
    ['2 min', 's', 120],
    ['2.4 GB', 'GB', 2.4],
    ['2400 MB', 'GB', 2.4],
    ['2.4e9 B', 'GB', 2.4],
    ['1 GiB', 'GB', 1.073741824],
    ['2 MiB', 'KiB', 2048],
    ['4096 bytes', 'KiB', 4],
    ['16 bits', 'B', 2],
    ['50%', '%', 50],
    ['50 %', '%', 50],
    ['1.2k tokens/s', 'tokens/s', 1200],
    ['1200 tok/s', 'tokens/s', 1200],
    // TPS as dashboards and notes write tokens per second (found as a user: "not a unit kb knows").
    ['800 TPS', 'tokens/s', 800],
    ['800tps', 'tokens/s', 800],
    ['1.2 kTPS', 'tokens/s', 1200],
    ['1.2k TPS', 'tokens/s', 1200],
    ['2 TPS', 'tokens/ms', 0.002],
    // QPS and RPS, a request rate as load tests and interviews say it ("1.6 QPS" was "not a unit kb knows").
    ['1.6 QPS', 'req/s', 1.6],
    ['1.6qps', 'req/s', 1.6],
    ['40 RPS', 'requests/s', 40],
    ['1.2k QPS', 'req/s', 1200],
    ['1.2 kRPS', 'req/s', 1200],
    ['3 tokens/ms', 'tokens/s', 3000],
    ['1.2k', 'tokens/s', 1200],
    ['1.5k', 'requests', 1500],
    ['2 PFLOP', 'TFLOP', 2000],
    ['3.2e15 FLOPs', 'TFLOP', 3200],
    ['989 TFLOPS', 'TFLOP/s', 989],
    ['1 PFLOP/s', 'TFLOP/s', 1000],
    ['2.5x', 'x', 2.5],
    ['2.5 ×', 'x', 2.5],
    ['40 req/s', 'req/s', 40],
    ['40 requests/s', 'req/s', 40],
    ['12 int8', 'int8', 12],
    ['100 request', 'requests', 100],
    ['2 TB/s', 'GB/s', 2000],
  ])('%s with the card in %s is %d', (text, unit, expected) => {
    expect(value(text, unit)).toBeCloseTo(expected, 9);
  });

  it('a unit that does not fit the card is a message, not a number', () => {
    expect(refusal('20 GB', 'ms')).toMatch(/"GB" does not convert to ms.*a time/);
    expect(refusal('20 ms', 'GB')).toMatch(/does not convert to GB/);
    expect(refusal('5 tokens', 'tokens/s')).toMatch(/does not convert/);
    expect(refusal('20 furlongs', 'ms')).toMatch(/not a unit kb knows/);
    expect(refusal('20 ms', null)).toMatch(/has no unit/);
    expect(refusal('20 kb', 'KiB')).toMatch(/not a unit kb knows/);
    expect(refusal('25 TPS', 'ms')).toMatch(/"TPS" does not convert to ms/);
    expect(refusal('2 mtps', 'tokens/s')).toMatch(/not a unit kb knows/);
    expect(refusal('40 QPS', 'tokens/s')).toMatch(/"QPS" does not convert to tokens\/s/);
    expect(refusal('40 TPS', 'req/s')).toMatch(/"TPS" does not convert to req\/s/);
  });

  it('a per-token answer takes its unit written per token, as the question asks it (found as a user)', () => {
    // A TPOT card in ms refused "25 ms/token" ("does not convert to ms"), and a card asking
    // "how many KiB of KV cache per token?" refused "40 KiB/token".
    expect(value('25 ms/token', 'ms')).toBe(25);
    expect(value('25ms/tok', 'ms')).toBe(25);
    expect(value('0.025 s/token', 'ms')).toBe(25);
    expect(value('40 KiB/token', 'KiB')).toBe(40);
    expect(value('2 ms/request', 'ms')).toBe(2);
    // Only a count below the line: a rate stays another kind of unit.
    expect(refusal('25 ms/GB', 'ms')).toMatch(/does not convert to ms/);
    expect(refusal('25 tokens/s', 'tokens')).toMatch(/does not convert to tokens/);
  });

  // Found by a learner, each asked again as a unit kb does not know: units written out, "per",
  // t/s, and the ~ of an estimate.
  it.each([
    ['25 milliseconds', 'ms', 25],
    ['25 MILLISECONDS', 'ms', 25],
    ['1 millisecond', 's', 0.001],
    ['25000 microseconds', 'ms', 25],
    ['25000000 nanoseconds', 'ms', 25],
    ['0.025 seconds', 'ms', 25],
    ['2 gigabytes', 'GB', 2],
    ['2 Megabytes', 'KiB', 2e6 / 1024],
    ['4 kibibytes', 'B', 4096],
    ['3 megatokens', 'tokens', 3e6],
    ['25ms per token', 'ms', 25],
    ['25 milliseconds per token', 'ms', 25],
    ['25 per token', 'ms', 25],
    ['25/token', 'ms', 25],
    ['685.7 tokens per second', 'tokens/s', 685.7],
    ['40 requests per second', 'req/s', 40],
    ['685.7 t/s', 'tokens/s', 685.7],
    ['1.2k t/s', 'tokens/s', 1200],
    ['3 t/ms', 'tokens/s', 3000],
    ['2.43 tokens/pass', 'tokens', 2.43],
    ['2.43 tokens per pass', 'tokens', 2.43],
    ['~3.4 ms', 'ms', 3.4],
    ['~ 3.4', 'ms', 3.4],
    ['\u2248 3.4ms', 'ms', 3.4],
    ['\uff5e3.4ms', 'ms', 3.4],
    ['50 per cent', '%', 50],
  ])('written out: %s with the card in %s is %d', (text, unit, expected) => {
    expect(value(text, unit)).toBeCloseTo(expected, 9);
  });

  it('what stays ambiguous written out is still asked again', () => {
    // A time takes no prefix above one, a count none below, written out or not.
    expect(refusal('3 kiloseconds', 's')).toMatch(/not a unit kb knows/);
    expect(refusal('3 millitokens', 'tokens')).toMatch(/not a unit kb knows/);
    // t only over a time (t/s), and only lower-case: T/s could be tera-anything.
    expect(refusal('25 t', 'tokens')).toMatch(/not a unit kb knows/);
    expect(refusal('25 T/s', 'tokens/s')).toMatch(/not a unit kb knows/);
    expect(refusal('25 per GB', 'ms')).toMatch(/not a unit kb knows/);
    expect(refusal('25 per token', 'tokens/s')).toMatch(/not a unit kb knows/);
    expect(refusal('25 ms per GB', 'ms')).toMatch(/does not convert to ms/);
    expect(refusal('~~3', 'ms')).toMatch(/not a number/);
  });

  // Found by a learner: 0.7086 on a card whose answer is 70.86 % was marked wrong, though it
  // was meant as a fraction. A bare number in (0, 1] on a % card is asked again, whatever the
  // answer (so it hints nothing); with its % it is taken as it is.
  it('a bare fraction on a card in % is asked again, saying how to write it', () => {
    expect(refusal('0.7086', '%')).toBe('answers here are in %: type 70.86 for 70.86 %, or 0.7086 % if you mean 0.7086 %');
    expect(refusal('0.07', '%')).toMatch(/type 7 for 7 %, or 0.07 % if you mean 0.07 %/);
    expect(refusal('1', '%')).toMatch(/type 100 for 100 %/);
    expect(refusal('~0.5', 'percent')).toMatch(/answers here are in percent: type 50 for 50 percent/);
    expect(value('0.7086 %', '%')).toBe(0.7086);
    expect(value('0.7086%', '%')).toBe(0.7086);
    expect(value('0.5 percent', '%')).toBe(0.5);
    // Out of (0, 1], or on any other card, a bare number is read as before.
    expect(value('0', '%')).toBe(0);
    expect(value('1.5', '%')).toBe(1.5);
    expect(value('70.86', '%')).toBe(70.86);
    expect(value('-0.5', '%')).toBe(-0.5);
    expect(value('0.7086', 'x')).toBe(0.7086);
    expect(value('0.7086', null)).toBe(0.7086);
    expect(value('0.7086', 'ms')).toBe(0.7086);
  });

  it('a ratio without a unit takes a trailing x or ×, as its worked answer writes it ("11.67x")', () => {
    for (const typed of ['11.7x', '11.7 x', '11.7×', '11.7 ×', '11.7X']) expect(value(typed, null)).toBe(11.7);
    expect(refusal('11.7 xs', null)).toMatch(/has no unit/);
    expect(refusal('11.7x', 'ms')).toMatch(/"x" does not convert to ms/);
  });

  it('a bare prefix is read only where it cannot be mistaken', () => {
    expect(refusal('2.4G', 'GB')).toMatch(/ambiguous.*2\.4 GB/);
    expect(refusal('1.5k', 'ms')).toMatch(/ambiguous/);
    expect(value('4k', 'B')).toBe(4000);
    expect(value('3M', null)).toBe(3_000_000);
  });
});

describe('typed answers: units that differ only by letter case', () => {
  // Found as a user: "25 Ms" on a TPOT card in ms was read as 25 megaseconds (2.5e10 ms) and
  // graded wrong, where the learner plainly meant 25 ms. Nobody means megaseconds here.
  it('refuses a case slip with the unit it was probably meant as, never reads it 10^6 off', () => {
    expect(refusal('25 Ms', 'ms')).toMatch(/"Ms" is not a unit kb knows here \(did you mean ms\?\): answer in ms/);
    expect(refusal('25 MS', 'ms')).toMatch(/did you mean ms\?/);
    expect(refusal('25 Msec', 's')).toMatch(/did you mean msec\?/);
    expect(refusal('25 Ms/token', 'ms')).toMatch(/did you mean ms\/token\?/);
    expect(refusal('2 Gs', 's')).toMatch(/not a unit kb knows/);
    expect(refusal('3 mtokens', 'tokens')).toMatch(/did you mean Mtokens\?/);
    expect(refusal('7m', 'tokens')).toMatch(/did you mean M\?/);
    expect(refusal('2 mB', 'GB')).toMatch(/did you mean MB\?/);
    expect(refusal('2 mbit', 'GB')).toMatch(/did you mean Mbit\?/);
    // A lower-case b is a bit or a byte, depending on who wrote it: both are offered.
    expect(refusal('2 Mb', 'MB')).toMatch(/did you mean MB or Mbit\?/);
    expect(refusal('2 mb', 'MB')).toMatch(/did you mean MB or Mbit\?/);
    // A bare prefix on a time card would be megaseconds again (or minutes mistyped).
    expect(refusal('25 M', 's')).toMatch(/ambiguous.*25 s/);
    expect(refusal('1.5k', 's')).toMatch(/ambiguous/);
    expect(refusal('50 k', '%')).toMatch(/ambiguous/);
    // What stays: the right case reads as before.
    expect(value('25 ms', 'ms')).toBe(25);
    expect(value('25 mSec', 'ms')).toBe(25);
    expect(value('2 MB', 'GB')).toBeCloseTo(0.002, 12);
    expect(value('2 KB', 'B')).toBe(2000);
    expect(value('2 MBIT', 'KiB')).toBeCloseTo(2e6 / 8 / 1024, 12);
    expect(value('3 Mtokens', 'tokens')).toBe(3e6);
  });

  it('no two spellings that differ only by case read as different amounts of one kind', () => {
    const prefixes = ['', 'n', 'u', 'µ', 'm', 'k', 'K', 'M', 'G', 'T', 'P', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'milli', 'micro', 'kilo', 'mega', 'giga', 'kibi'];
    const bases = ['B', 'byte', 'bytes', 'bit', 's', 'sec', 'second', 'min', 'h', 'hr', 'token', 'tok', 'req', 'flop', 'FLOPs', 'FLOPS', 'seq', 'block', 'step', 'gpu', 'param', 'weights', '%', 'x'];
    const flipped = (text: string, flips: boolean[]) => [...text].map((c, i) => (flips[i % flips.length] ? (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) : c)).join('');
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), fc.constantFrom(...bases), fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }), (prefix, base, flips) => {
        const text = `${prefix}${base}`;
        const other = flipped(text, flips);
        const a = unitMeaning(text);
        const b = unitMeaning(other);
        // Another kind (FLOPS a rate, FLOPs a count) is refused on any card; the same kind must be the same amount.
        if (a && b && a.dimension === b.dimension) expect([other, b.factor]).toEqual([other, a.factor]);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('typed answers: Chinese unit names', () => {
  // Found as a user: "25毫秒" and "0.025 秒" were "not a unit kb knows", though kb's users
  // write Chinese notes and type their answers with a Chinese input method.
  it.each([
    ['25毫秒', 'ms', 25],
    ['25 毫秒', 'ms', 25],
    ['\uff12\uff15\u3000毫秒', 'ms', 25],
    ['0.025秒', 'ms', 25],
    ['0.025 秒钟', 'ms', 25],
    ['25000微秒', 'ms', 25],
    ['25纳秒', 'µs', 0.025],
    ['2分钟', 's', 120],
    ['2 分', 's', 120],
    ['2小时', 'min', 120],
    ['2个小时', 'min', 120],
    ['4096字节', 'KiB', 4],
    ['16 比特', 'B', 2],
    ['100个token', 'tokens', 100],
    ['100 个词元', 'tokens', 100],
    ['100条请求', 'requests', 100],
    ['100个', 'requests', 100],
    ['8张GPU', 'gpus', 8],
    ['12块', 'blocks', 12],
    ['1200 tokens/秒', 'tokens/s', 1200],
    ['1200个词元/秒', 'tokens/s', 1200],
    ['25毫秒/token', 'ms', 25],
    ['25 毫秒/个词元', 'ms', 25],
    ['40请求/秒', 'req/s', 40],
    ['11.7倍', 'x', 11.7],
  ])('%s with the card in %s is %d', (text, unit, expected) => {
    expect(value(text, unit)).toBeCloseTo(expected, 9);
  });

  it.each([
    ['70亿参数', 'params', 7e9],
    ['70亿', 'params', 7e9],
    ['1.2万', 'tokens', 12_000],
    ['1.2万 tokens/s', 'tokens/s', 12_000],
    ['3千个词元', 'tokens', 3000],
    ['2万亿', 'tokens', 2e12],
    ['5万毫秒', 's', 50],
  ])('a Chinese numeral scales the number: %s with the card in %s is %d', (text, unit, expected) => {
    expect(value(text, unit)).toBeCloseTo(expected, 6);
  });

  it('a numeral with no unit after it, on a card whose unit has a prefix or is a time, is asked again as 1.5k is', () => {
    expect(refusal('1.2万', 'k tokens')).toMatch(/"万" alone is ambiguous here: write the unit, e\.g\. 1\.2 k tokens/);
    expect(refusal('5万', 'ms')).toMatch(/ambiguous/);
    expect(value('1.2万 tokens', 'k tokens')).toBeCloseTo(12, 9);
  });

  it('兆 (10^6 in some places, 10^12 in others) is not read as a numeral', () => {
    expect(refusal('3兆', 'tokens')).toMatch(/not a unit kb knows/);
  });

  it('a ratio without a unit takes 倍 as it takes x', () => {
    expect(value('11.7倍', null)).toBe(11.7);
  });

  it('a Chinese unit of the wrong kind is refused as an English one is', () => {
    expect(refusal('25毫秒', 'GB')).toMatch(/"毫秒" does not convert to GB/);
    expect(refusal('25个', 'ms')).toMatch(/not a unit kb knows/);
    expect(refusal('25个毫秒', 'ms')).toMatch(/not a unit kb knows/);
  });
});

describe('typed answers: a value written with any prefix reads back', () => {
  const prefixes: Record<string, number> = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };
  const timePrefixes: Record<string, number> = { '': 1, m: 1e-3, u: 1e-6, µ: 1e-6, n: 1e-9 };

  it('bytes: value / prefix, then the prefix, gives the value in B', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e15, noNaN: true }),
        fc.constantFrom(...Object.keys(prefixes)),
        fc.constantFrom('', ' '),
        fc.constantFrom('B', 'bytes'),
        (bytes, prefix, space, base) => {
          const text = `${bytes / prefixes[prefix]}${space}${prefix}${base}`;
          const read = value(text, 'B');
          expect(Math.abs(read - bytes)).toBeLessThanOrEqual(1e-12 * bytes);
        },
      ),
    );
  });

  it('times: any prefix of seconds, read on a card in ms or in s', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-9, max: 1e6, noNaN: true }),
        fc.constantFrom(...Object.keys(timePrefixes)),
        fc.constantFrom('ms', 's'),
        (seconds, prefix, cardUnit) => {
          const text = `${(seconds / timePrefixes[prefix]).toExponential(15)} ${prefix}s`;
          const expected = cardUnit === 'ms' ? seconds * 1000 : seconds;
          expect(Math.abs(value(text, cardUnit) - expected)).toBeLessThanOrEqual(1e-12 * expected);
        },
      ),
    );
  });

  it('rates: tokens/s and FLOP/s with SI prefixes', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 1e18, noNaN: true }),
        fc.constantFrom('', 'k', 'M', 'G', 'T'),
        fc.constantFrom(['tokens/s', 'tokens/s'], ['FLOP/s', 'FLOP/s'], ['FLOPS', 'FLOP/s']),
        (rate, prefix, [typedBase, cardUnit]) => {
          const text = `${rate / prefixes[prefix]} ${prefix}${typedBase}`;
          expect(Math.abs(value(text, cardUnit) - rate)).toBeLessThanOrEqual(1e-12 * rate);
        },
      ),
    );
  });
});

describe('--time durations', () => {
  it.each([
    ['45s', 45_000],
    ['45', 45_000],
    ['90 s', 90_000],
    ['2m', 120_000],
    ['1m30s', 90_000],
    ['1.5 min', 90_000],
    ['500ms', 500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it('takes Chinese units too', () => {
    expect(parseDuration('45秒')).toBe(45_000);
    expect(parseDuration('2分钟')).toBe(120_000);
  });

  it.each(['soon', '0', '-5s', '5 GB', ''])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});
