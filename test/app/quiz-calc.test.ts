// Calculation cards through the quiz: fresh values, the expected number (checked against an
// independent computation in the test), typed answers in other units, the worked solution;
// hostile formulas refused with file and line; every shipped calc card answerable.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatNumber, parseCalc } from '../../src/kb/calc.ts';
import { parseKnowledgeFile } from '../../src/kb/parse-file.ts';
import { seededRandom } from '../../src/kb/seeded-random.ts';
import type { CalcSpec } from '../../src/model/knowledge-base.ts';
import { answerCalc, createQuizSession, currentQuestion, solutionText, type QuizCard, type QuizSession } from '../../src/app/quiz/quiz-session.ts';
import { repoRoot } from '../helpers/kb-cli.ts';
import { quizCard, TPOT_SPEC } from './quiz-fixture.ts';
import { TPOT_CALC_YAML } from '../helpers/calc-fixtures.ts';

function spec(source: string): CalcSpec {
  const parsed = parseCalc(source, 7, 'cards/test.md');
  expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return parsed.spec as CalcSpec;
}

function card(id: string, front: string, calc: CalcSpec): QuizCard {
  return quizCard(id, { line: 5, front, back: '', tags: ['test'], calc });
}

function session(cards: QuizCard[], seed: number): QuizSession {
  return createQuizSession(cards, { id: 's', seed, startedAt: 0, timeLimitMs: null }, seededRandom(seed));
}

/** Draws the card in many sessions; each time the expected answer must equal `independent`. */
function checkDraws(quizCard: QuizCard, independent: (v: Record<string, number>) => number, draws = 200) {
  const seenValues = new Set<string>();
  for (let seed = 1; seed <= draws; seed++) {
    const question = session([quizCard], seed).questions[0];
    expect(question.values).not.toBeNull();
    const values = question.values as Record<string, number>;
    seenValues.add(JSON.stringify(values));
    const expected = independent(values);
    expect(Math.abs((question.expected as number) - expected)).toBeLessThanOrEqual(1e-9 * Math.abs(expected));
  }
  // Fresh values each time, not one frozen draw.
  expect(seenValues.size).toBeGreaterThan(1);
}

function answer(s: QuizSession, typed: string) {
  const attempt = answerCalc(s, typed, { askedAt: 0, answeredAt: 1000 });
  if (attempt.kind !== 'answered') throw new Error(attempt.message);
  return attempt.answer;
}

const TPOT = spec(TPOT_CALC_YAML);

const KV = spec(`vars:
  layers: { choose: [24, 32, 80] }
  kvh: { choose: [8, 32] }
  hd: { choose: [64, 128] }
  bpe: { choose: [1, 2] }
  ctx: { min: 1024, max: 8192, step: 1024 }
  b: { choose: [1, 8, 32] }
answer: 2 * layers * kvh * hd * bpe * ctx * b / 1024^3
unit: GiB
tolerance: 1%
explain: 2 x {layers} x {kvh} x {hd} x {bpe} B x {ctx} tokens x {b} = {answer} GiB
`);

const ROOFLINE = spec(`vars:
  p: { choose: [7, 13, 70] }
  bpp: { choose: [0.5, 1, 2] }
  bw: { choose: [1, 2, 3.35] }
answer: bw * 1e12 / (p * 1e9 * bpp)
unit: tokens/s
tolerance: 1%
explain: "{bw} TB/s / ({p}e9 x {bpp} B) = {answer} tokens/s"
`);

const LITTLE = spec(`vars:
  lam: { min: 10, max: 100, step: 10 }
  w: { choose: [0.5, 1.5, 2.5] }
answer: lam * w
unit: requests
tolerance: 0.5
explain: L = {lam} x {w} = {answer}
`);

describe('calc cards in a quiz', () => {
  it('seed-004 TPOT: TTFT 0.5 s, 100 tokens, 2.5 s in all -> 20 ms, in any time unit', () => {
    const fixed = spec(TPOT_SPEC);
    const s = session([card('tpot', 'TTFT {ttft} s, {n} tokens by {total} s: TPOT?', fixed)], 1);
    const question = currentQuestion(s);
    expect(question?.prompt).toBe('TTFT 0.5 s, 100 tokens by 2.5 s: TPOT?');
    expect(question?.expected).toBeCloseTo((2.5 - 0.5) / 100 * 1000, 12);
    expect(solutionText(question!)).toBe('TPOT = (2.5 - 0.5) / 100 s = 20 ms');
    for (const typed of ['20', '20ms', '20 ms', '0.02 s', '20000 us', '20.1']) expect(answer(s, typed)).toMatchObject({ correct: true });
    for (const typed of ['21', '0.2 s', '2']) expect(answer(s, typed)).toMatchObject({ correct: false });
  });

  it('a card without an explain line, or with one that does not give the answer, shows the answer first (found as a user: Space showed nothing)', () => {
    const bare = spec('vars:\n  a: { min: 3, max: 3, step: 1 }\nanswer: a * 3\nunit: s\n');
    expect(solutionText(currentQuestion(session([card('bare', 'Three times {a}?', bare)], 1))!)).toBe('Answer: 9 s');
    const partial = spec('vars:\n  a: { min: 2, max: 2, step: 1 }\nanswer: 10 / a\nunit: ms\nexplain: "10 / {a}"\n');
    expect(solutionText(currentQuestion(session([card('partial', 'Ten over {a}?', partial)], 1))!)).toBe('Answer: 5 ms\n\n10 / 2');
  });

  it('seed-004 TPOT with drawn values matches (total - ttft) / n', () => {
    checkDraws(card('tpot', 'q', TPOT), (v) => ((v.total - v.ttft) / v.n) * 1000);
  });

  it('KV-cache bytes for a model shape: 2 x layers x KV heads x head dim x bytes x tokens', () => {
    checkDraws(card('kv', 'q', KV), (v) => (2 * v.layers * v.kvh * v.hd * v.bpe * v.ctx * v.b) / 2 ** 30);
    // A Llama-2-7B shape: 32 layers x 32 heads x 128, fp16, 4096 tokens = 512 KiB a token = 2 GiB.
    const exact = spec(`vars:
  ctx: { choose: [4096] }
answer: 2 * 32 * 32 * 128 * 2 * ctx / 1024^3
unit: GiB
tolerance: 1%
`);
    const s = session([card('kv7b', 'q', exact)], 3);
    expect(s.questions[0].expected).toBe(2);
    expect(answer(s, '2048 MiB').correct).toBe(true);
    expect(answer(s, '2.147e9 B').correct).toBe(true);
    expect(answer(s, '2 GB').correct).toBe(false);
  });

  it('decode tokens/s roofline bound: bandwidth / bytes of weights read per token', () => {
    checkDraws(card('roofline', 'q', ROOFLINE), (v) => (v.bw * 1e12) / (v.p * 1e9 * v.bpp));
    const s = session([card('r', 'q', ROOFLINE)], 5);
    const v = s.questions[0].values as Record<string, number>;
    const bound = (v.bw * 1e12) / (v.p * 1e9 * v.bpp);
    expect(answer(s, `${bound / 1000}k tokens/s`).correct).toBe(true);
    expect(answer(s, `${bound * 1.05}`).correct).toBe(false);
  });

  it("Little's law: requests in the system = arrival rate x time in system", () => {
    checkDraws(card('little', 'q', LITTLE), (v) => v.lam * v.w);
    const s = session([card('l', 'q', LITTLE)], 9);
    const v = s.questions[0].values as Record<string, number>;
    expect(answer(s, String(v.lam * v.w + 0.4)).correct).toBe(true);
    expect(answer(s, String(v.lam * v.w + 0.6)).correct).toBe(false);
  });

  it('a unit that does not fit asks again and records nothing', () => {
    const s = session([card('tpot', 'q', TPOT)], 2);
    const attempt = answerCalc(s, '20 GB', { askedAt: 0, answeredAt: 10 });
    expect(attempt).toEqual({ kind: 'retry', message: expect.stringContaining('does not convert to ms') });
    expect(s.answers).toEqual([]);
  });
});

describe('hostile formulas are refused with file and line', () => {
  const hostile = [
    'constructor',
    '__proto__',
    'process',
    'process.exit(1)',
    'x.constructor',
    'x["__proto__"]',
    'eval("1")',
    'Function("return 1")',
    'import("fs")',
    'f(y) = y',
    '10^10^10',
    '2^99999',
    'x^(10^400)',
    'pow(10, 5000)',
  ];
  it.each(hostile)('%s', (formula) => {
    const text = `---\ntags: [t]\n---\n\n## Question {x}?\n\n\`\`\`kb-calc\nvars:\n  x: { choose: [2] }\nanswer: ${formula}\n\`\`\`\n`;
    const parsed = parseKnowledgeFile('cards/evil.md', text);
    const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0].file).toBe('cards/evil.md');
    // The fence is on line 7, the answer on line 10: either names the block.
    expect([7, 10]).toContain(errors[0].line);
    expect(errors[0].message).toMatch(/^kb-calc: /);
    // A card never carries a formula kb could not check, so the quiz can never draw it.
    expect(parsed.cards.every((c) => c.calc === null)).toBe(true);
  });
});

describe('the shipped decks', () => {
  const files = readdirSync(join(repoRoot, 'cards')).filter((name) => name.endsWith('.md'));
  const calcCards = files.flatMap((name) => {
    const parsed = parseKnowledgeFile(`cards/${name}`, readFileSync(join(repoRoot, 'cards', name), 'utf8'));
    return parsed.cards.filter((c) => c.calc !== null);
  });

  it('has calc cards', () => {
    expect(calcCards.length).toBeGreaterThanOrEqual(50);
  });

  it('a card whose worked answer writes a ratio as "{answer}x" accepts the answer typed that way', () => {
    const ratios = calcCards.filter((parsed) => !parsed.calc?.unit && /\{answer\}\s?[x×]/.test(parsed.calc?.explain ?? ''));
    expect(ratios.length).toBeGreaterThan(0);
    for (const parsed of ratios) {
      const s = session([{ ...parsed, path: parsed.file, id: parsed.id ?? parsed.front }], 3);
      for (const typed of [`${formatNumber(s.questions[0].expected as number)}x`, `${formatNumber(s.questions[0].expected as number)} ×`]) {
        const result = answerCalc(s, typed, { askedAt: 0, answeredAt: 1 });
        expect(result.kind === 'answered' && result.answer.correct, `${parsed.file}:${parsed.line} typed "${typed}"`).toBe(true);
      }
    }
  });

  it('every calc card draws finite answers, fills its question, and accepts its answer typed with its unit', () => {
    for (const parsed of calcCards) {
      const quizCard: QuizCard = { ...parsed, path: parsed.file, id: parsed.id ?? parsed.front };
      for (let seed = 1; seed <= 20; seed++) {
        const s = session([quizCard], seed);
        expect(s.questions, `${parsed.file}:${parsed.line}`).toHaveLength(1);
        const question = s.questions[0];
        expect(question.prompt, `${parsed.file}:${parsed.line}`).not.toMatch(/\{[A-Za-z_]\w*\}/);
        const unit = parsed.calc?.unit;
        const typed = `${formatNumber(question.expected as number)}${unit ? ` ${unit}` : ''}`;
        const result = answerCalc(s, typed, { askedAt: 0, answeredAt: 1 });
        expect(result.kind === 'answered' && result.answer.correct, `${parsed.file}:${parsed.line} typed "${typed}"`).toBe(true);
      }
    }
  });
});
