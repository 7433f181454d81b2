import { describe, expect, it } from 'vitest';
import { calcAnswer, checkCalcAnswer, drawCalc, formatNumber, parseCalc, renderTemplate, validateCalc } from '../../src/kb/calc.ts';
import { parseKnowledgeFile } from '../../src/kb/parse-file.ts';
import { seededRandom } from '../../src/kb/seeded-random.ts';
import type { CalcSpec } from '../../src/model/knowledge-base.ts';
import { TPOT_CALC_YAML as TPOT } from '../helpers/calc-fixtures.ts';


function spec(source: string, line = 10): CalcSpec {
  const parsed = parseCalc(source, line, 'cards/x.md');
  expect(parsed.diagnostics).toEqual([]);
  expect(parsed.spec).not.toBeNull();
  return parsed.spec as CalcSpec;
}

describe('kb-calc: the seed-004 TPOT question', () => {
  it('parses the DESIGN.md block', () => {
    const tpot = spec(TPOT);
    expect(tpot.vars).toEqual([
      { name: 'ttft', kind: 'range', min: 0.2, max: 1.0, step: 0.1 },
      { name: 'n', kind: 'choose', values: [50, 100, 200] },
      { name: 'total', kind: 'expr', expr: 'ttft + n * 0.02' },
    ]);
    expect(tpot.unit).toBe('ms');
    expect(tpot.tolerance).toEqual({ kind: 'rel', value: 0.01 });
    expect(tpot.line).toBe(10);
  });

  it('TTFT 0.5 s, 100 tokens, 2.5 s total -> 20 ms', () => {
    const tpot = spec(TPOT);
    const values = { ttft: 0.5, n: 100, total: 2.5 };
    expect(calcAnswer(tpot, values)).toBeCloseTo(20, 10);
    expect(checkCalcAnswer(tpot, values, 20)).toBe(true);
    expect(checkCalcAnswer(tpot, values, 20.19)).toBe(true);
    expect(checkCalcAnswer(tpot, values, 20.3)).toBe(false);
    expect(checkCalcAnswer(tpot, values, 0.02)).toBe(false);
    expect(renderTemplate(tpot.explain as string, values, tpot)).toBe('TPOT = (total - TTFT) / n = (2.5 - 0.5) / 100 s = 20 ms');
  });

  it('computes formula variables that were not given', () => {
    expect(calcAnswer(spec(TPOT), { ttft: 0.5, n: 100 })).toBeCloseTo(20, 10);
  });

  it('draws values on the range grid and from the list, reproducibly', () => {
    const tpot = spec(TPOT);
    const rng = seededRandom(42);
    const grid = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const values = drawCalc(tpot, rng);
      expect(grid).toContain(values.ttft);
      expect([50, 100, 200]).toContain(values.n);
      expect(values.total).toBeCloseTo(values.ttft + values.n * 0.02, 12);
      expect(checkCalcAnswer(tpot, values, 20)).toBe(true);
      seen.add(values.ttft);
    }
    expect(seen.size).toBe(grid.length);
    expect(drawCalc(tpot, seededRandom(7))).toEqual(drawCalc(tpot, seededRandom(7)));
  });
});

describe('kb-calc: inference formulas', () => {
  it('KV-cache bytes for a model shape', () => {
    const kv = spec(`vars:
  layers: { choose: [24, 32] }
  kv_heads: { choose: [8] }
  head_dim: { choose: [128] }
  tokens: { choose: [4096] }
  bytes: { choose: [2] }
answer: 2 * layers * kv_heads * head_dim * tokens * bytes / 2^30
unit: GiB
tolerance: 0.01
`);
    expect(kv.tolerance).toEqual({ kind: 'abs', value: 0.01 });
    expect(calcAnswer(kv, { layers: 32, kv_heads: 8, head_dim: 128, tokens: 4096, bytes: 2 })).toBeCloseTo(0.5, 12);
  });

  it('a decode tokens/s roofline bound', () => {
    const roofline = spec(`vars:
  params_b: { choose: [7, 13] }
  bandwidth_gbs: { min: 900, max: 3300, step: 100 }
answer: bandwidth_gbs / (params_b * 2)
unit: tokens/s
tolerance: 2%
`);
    expect(calcAnswer(roofline, { params_b: 7, bandwidth_gbs: 2000 })).toBeCloseTo(142.857, 3);
    expect(checkCalcAnswer(roofline, { params_b: 7, bandwidth_gbs: 2000 }, 143)).toBe(true);
  });

  it("Little's law", () => {
    const little = spec(`vars:
  rate: { min: 1, max: 20, step: 1 }
  latency: { choose: [0.5, 2, 8] }
answer: rate * latency
explain: L = {rate}/s x {latency} s = {answer} requests in flight
`);
    expect(little.tolerance).toEqual({ kind: 'rel', value: 0.01 });
    expect(renderTemplate(little.explain as string, { rate: 10, latency: 2 }, little)).toBe('L = 10/s x 2 s = 20 requests in flight');
  });

  it('allows the whitelisted functions and constants', () => {
    const ok = spec(`vars:
  x: { min: 1, max: 4, step: 1 }
answer: sqrt(x) + log(x) + log(x, 2) + log2(x) + log10(x) + exp(1) + min(x, 2) + max(x, 2) + abs(-x) + ceil(x / 3) + floor(x / 3) + round(x / 3) + round(pi, 2) + pow(x, 2) + e - -x + +x
`);
    expect(calcAnswer(ok, { x: 1 })).toBeGreaterThan(0);
  });
});

describe('kb-calc: hostile and broken formulas are refused with file and line', () => {
  const refusals: Array<[string, RegExp]> = [
    ['constructor', /unknown name "constructor"/],
    ['__proto__', /unknown name "__proto__"/],
    ['process', /unknown name "process"/],
    ['process.exit(1)', /not allowed/],
    ['x.constructor', /property access/],
    ['x["constructor"]', /not allowed/],
    ['f(y) = y', /function definition/],
    ['a = 1', /assignment/],
    ['"abc"', /only numbers/],
    ['[1, 2]', /matrix or list/],
    ['x > 1 ? 1 : 2', /not allowed/],
    ['eval("1")', /function "eval" is not allowed/],
    ['Function("return 1")', /function "Function" is not allowed/],
    ['import("fs")', /not allowed/],
    ['2 x', /write multiplication with \*/],
    ['x mod 2', /operator "mod" is not allowed/],
    ['x!', /not allowed/],
    ['2 ^ 100000', /exponent 100000 is too large/],
    ['pow(2, 5000)', /exponent 5000 is too large/],
    ['1e400', /number too large/],
    ['y + 1', /unknown name "y"/],
    ['x +', /cannot parse/],
    ['1; 2', /several statements/],
    ['x:3', /range/],
    ['sqrt()', /takes 1 argument/],
  ];
  it.each(refusals)('refuses %s', (formula, reason) => {
    const parsed = parseCalc(`vars:\n  x: { min: 1, max: 3, step: 1 }\nanswer: ${JSON.stringify(formula)}\n`, 20, 'cards/evil.md');
    expect(parsed.spec).toBeNull();
    const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].file).toBe('cards/evil.md');
    expect(errors[0].line).toBe(23);
    expect(errors[0].message).toMatch(reason);
  });

  it('refuses a hostile variable formula on its own line', () => {
    const parsed = parseCalc('vars:\n  a: { choose: [1] }\n  b: a.__proto__\nanswer: a\n', 5, 'cards/evil.md');
    expect(parsed.spec).toBeNull();
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ severity: 'error', file: 'cards/evil.md', line: 8 })]);
  });

  it('refuses variables named like functions, constants or answer', () => {
    for (const name of ['sqrt', 'pi', 'answer']) {
      const parsed = parseCalc(`vars:\n  ${name}: { choose: [1] }\nanswer: 1\n`, 1, 'cards/x.md');
      expect(parsed.spec).toBeNull();
    }
  });

  it('never runs a formula through eval or Function', () => {
    const before = { eval: globalThis.eval, Function: globalThis.Function };
    let called = false;
    globalThis.eval = (() => { called = true; }) as unknown as typeof eval;
    try {
      const tpot = spec(TPOT);
      expect(calcAnswer(tpot, { ttft: 0.5, n: 100, total: 2.5 })).toBeCloseTo(20, 10);
    } finally {
      globalThis.eval = before.eval;
    }
    expect(called).toBe(false);
  });
});

describe('kb-calc: validation over drawable values', () => {
  it('finds a division by zero at one list value', () => {
    const parsed = parseCalc('vars:\n  n: { choose: [50, 100, 200] }\nanswer: 1 / (n - 100)\n', 3, 'cards/x.md');
    expect(parsed.spec).toBeNull();
    expect(parsed.diagnostics[0]).toMatchObject({ severity: 'error', file: 'cards/x.md', line: 3 });
    expect(parsed.diagnostics[0].message).toMatch(/answer is infinite when n=100/);
  });

  it('finds a NaN inside a range', () => {
    const parsed = parseCalc('vars:\n  x: { min: 0, max: 10, step: 1 }\nanswer: sqrt(x - 5)\n', 3, 'cards/x.md');
    expect(parsed.diagnostics[0].message).toMatch(/NaN/);
  });

  it('finds a NaN in a formula variable and a huge result', () => {
    expect(parseCalc('vars:\n  x: { choose: [0] }\n  y: log(x) - log(x)\nanswer: y\n', 1, 'f').diagnostics[0].message).toMatch(/y is/);
    expect(parseCalc('vars:\n  x: { min: 1, max: 900, step: 1 }\nanswer: 2 ^ x\n', 1, 'f').diagnostics[0].message).toMatch(/huge|infinite/);
  });

  it('samples large combination spaces without hanging', () => {
    const wide = spec('vars:\n  a: { min: 1, max: 1000, step: 1 }\n  b: { min: 1, max: 1000, step: 1 }\n  c: { min: 1, max: 1000, step: 1 }\nanswer: a * b / c\n');
    expect(validateCalc(wide, 'f')).toEqual([]);
  });

  it('reports bad ranges, lists and tolerances', () => {
    const cases: Array<[string, RegExp]> = [
      ['vars:\n  x: { min: 2, max: 1, step: 1 }\nanswer: x\n', /max must not be below min/],
      ['vars:\n  x: { min: 1, max: 2, step: 0 }\nanswer: x\n', /step must be above 0/],
      ['vars:\n  x: { choose: [] }\nanswer: x\n', /non-empty list/],
      ['vars:\n  x: { choose: [1, "a"] }\nanswer: x\n', /numbers only/],
      ['vars:\n  x: { low: 1 }\nanswer: x\n', /unknown field "low"/],
      ['answer: 1\ntolerance: lots\n', /tolerance/],
      ['vars:\n  x: { choose: [1] }\n', /answer: a formula is required/],
      ['answer: [1\n', /.+/],
      ['answer: !!js/function "function () { return 1 }"\n', /custom YAML tags/],
    ];
    for (const [source, reason] of cases) {
      const parsed = parseCalc(source, 1, 'f');
      expect(parsed.spec, source).toBeNull();
      expect(parsed.diagnostics.find((d) => d.severity === 'error')?.message, source).toMatch(reason);
    }
  });

  it('warns about unknown placeholders and keys', () => {
    const parsed = parseCalc('answer: 1\nexplain: "{nope} {answer}"\ncolour: red\n', 1, 'f');
    expect(parsed.spec).not.toBeNull();
    expect(parsed.diagnostics.map((d) => d.severity)).toEqual(['warning', 'warning']);
  });
});

describe('kb-calc inside cards files', () => {
  it('skips the file of a card with a broken block (its question would show raw {x}) and reports file and line', () => {
    const text = '## Q {x}?\n\nSee below.\n\n```kb-calc\nvars:\n  x: { choose: [1] }\nanswer: x.constructor\n```\n';
    const parsed = parseKnowledgeFile('cards/d.md', text);
    expect(parsed.skipped).toBe(true);
    expect(parsed.cards).toHaveLength(0);
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ severity: 'error', file: 'cards/d.md', line: 8 })]);
  });

  it('refuses a second block in one card', () => {
    const block = '```kb-calc\nanswer: 1\n```\n';
    const parsed = parseKnowledgeFile('cards/d.md', `## Q\n\n${block}\n${block}`);
    expect(parsed.cards[0].calc).not.toBeNull();
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ severity: 'error', line: 7 })]);
  });

  it('warns about question placeholders that are not variables', () => {
    const parsed = parseKnowledgeFile('cards/d.md', '## Q {y}?\n```kb-calc\nanswer: 1\n```\n');
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', line: 1 })]);
  });
});

describe('formatNumber', () => {
  it.each([[20, '20'], [0.02, '0.02'], [2.5, '2.5'], [1 / 3, '0.3333'], [0.1 + 0.2, '0.3'], [1234.5, '1235'], [4096, '4096'], [-0, '0'], [142.857142, '142.9'], [1.5e-7, '1.5e-7']])('formats %s as %s', (value, text) => {
    expect(formatNumber(value)).toBe(text);
  });

  it('leaves unknown placeholders as written', () => {
    expect(renderTemplate('{a} and {b} and {}', { a: 1.5 })).toBe('1.5 and {b} and {}');
  });
});
