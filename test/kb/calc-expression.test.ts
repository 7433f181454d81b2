// kb-calc formulas are parsed by kb itself, with mathjs's rules for the subset it allows (kb
// parsed them with mathjs before): precedence, associativity, signs, percentages, and every
// other construct refused by name.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFormula, evaluate, type Expr } from '../../src/kb/calc-expression.ts';

const known = new Set(['a', 'b', 'rate']);
const values = { a: 3, b: 0.5, rate: 12 };
const value = (source: string) => evaluate(compileFormula(source, known), values);

describe('kb-calc formula grammar', () => {
  it('reads precedence, associativity and signs as mathjs does', () => {
    expect(value('-2^2')).toBe(-4);
    expect(value('(-2)^2')).toBe(4);
    expect(value('2^3^2')).toBe(512);
    expect(value('2^-1')).toBe(0.5);
    expect(value('2^2^-1')).toBeCloseTo(Math.SQRT2, 15);
    expect(value('-a^2')).toBe(-9);
    expect(value('1/2/2')).toBe(0.25);
    expect(value('a - b - 1')).toBe(1.5);
    expect(value('a/-b*2')).toBe(-12);
    expect(value('--a + -+-a')).toBe(6);
    expect(value('2 * -rate')).toBe(-24);
    expect(value('min(a, b, 1, 2) + max(a, 2) + round(pi, 2) + log(8, 2)')).toBeCloseTo(0.5 + 3 + 3.14 + 3, 12);
  });

  it('reads numbers as mathjs does: decimals, exponents, hexadecimal, binary, octal, percentages', () => {
    expect(value('.5 + 2. + 1e3 + 2.5e-2')).toBe(0.5 + 2 + 1000 + 0.025);
    expect(value('0x10 + 0b101 + 0o17')).toBe(16 + 5 + 15);
    expect(value('10%')).toBe(0.1);
    expect(value('rate * 50% * 2')).toBe(12);
    expect(value('(10%) + 1')).toBe(1.1);
    expect(value('-1%')).toBe(-0.01);
    expect(() => value('a % 2')).toThrow(/operator "%" is not allowed/);
    // A value after %, signed or not, makes it a modulo, as in mathjs: 50% + 1 is 50 mod +1.
    for (const source of ['a%+0', '50% + 1', '10% 2']) expect(() => value(source), source).toThrow(/operator "%" is not allowed/);
    expect(() => value('1e400')).toThrow(/number too large/);
  });

  it('takes line breaks where a value must come and at the end, not between two formulas', () => {
    expect(value('a +\n  b\n')).toBe(3.5);
    expect(() => value('a\nb')).toThrow(/several statements/);
  });

  it('refuses a value right after a value, and element-wise operators', () => {
    for (const source of ['2 a', '2(a)', '(a)(b)', 'a b', '2 pi']) expect(() => value(source), source).toThrow(/write multiplication with \*/);
    for (const source of ['3.^2', 'a.*b', "a'"]) expect(() => value(source), source).toThrow(/not allowed/);
  });

  // A tree printed with only the parentheses precedence needs reads back as the same tree.
  it('parses any printed tree to its value (property)', () => {
    const leaf = fc.oneof(fc.constantFrom<Expr>({ k: 'var', name: 'a' }, { k: 'var', name: 'b' }, { k: 'var', name: 'rate' }), fc.integer({ min: 0, max: 9 }).map((n): Expr => ({ k: 'num', value: n })));
    const tree = fc.letrec<{ e: Expr }>((tie) => ({
      e: fc.oneof(
        { depthSize: 'small' },
        leaf,
        tie('e').map((arg): Expr => ({ k: 'neg', arg })),
        fc.tuple(fc.constantFrom('+', '-', '*', '/', '^') as fc.Arbitrary<'+' | '-' | '*' | '/' | '^'>, tie('e'), tie('e')).map(([op, left, right]): Expr => ({ k: 'bin', op, left, right })),
      ),
    })).e;
    fc.assert(
      fc.property(tree, (expr) => {
        const expected = evaluate(expr, values);
        const got = evaluate(compileFormula(print(expr), known), values);
        expect(Object.is(got, expected) || Math.abs(got - expected) <= 1e-9 * Math.abs(expected)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

const PRECEDENCE = { '+': 1, '-': 1, '*': 2, '/': 2, neg: 3, '^': 4 } as const;

function precedence(expr: Expr): number {
  if (expr.k === 'bin') return PRECEDENCE[expr.op];
  return expr.k === 'neg' ? PRECEDENCE.neg : 5;
}

/** The formula with parentheses only where precedence and associativity need them. */
function print(expr: Expr): string {
  const wrap = (child: Expr, needs: boolean) => (needs ? `(${print(child)})` : print(child));
  switch (expr.k) {
    case 'num':
      return String(expr.value);
    case 'var':
      return expr.name;
    case 'call':
      return `${expr.fn}(${expr.args.map(print).join(', ')})`;
    case 'neg':
      // -a^2 is -(a^2): a power needs no parentheses under a sign, a sum or product does.
      return `-${wrap(expr.arg, precedence(expr.arg) < PRECEDENCE.neg)}`;
    case 'bin': {
      const own = PRECEDENCE[expr.op];
      if (expr.op === '^') {
        // Right-associative; the base of a power is a single value; the exponent may be signed.
        return `${wrap(expr.left, precedence(expr.left) <= own)}^${wrap(expr.right, precedence(expr.right) < PRECEDENCE.neg)}`;
      }
      const right = precedence(expr.right) < own || (precedence(expr.right) === own && (expr.op === '-' || expr.op === '/' || expr.right.k === 'bin'));
      return `${wrap(expr.left, precedence(expr.left) < own)} ${expr.op} ${wrap(expr.right, right)}`;
    }
  }
}
