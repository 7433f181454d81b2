// Calc cards in kb review: values drawn once per study day from the card id and the day,
// checked as kb quiz checks them; and the keys of the answer line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCalc } from '../../src/kb/calc.ts';
import type { CalcSpec } from '../../src/model/knowledge-base.ts';
import { calcFaces, checkTyped, dailyCalc, dailyFront } from '../../src/app/review/review-calc.ts';
import { calcKey, type CalcKey } from '../../src/ui/review/calc-keys.ts';
import { TPOT_CALC_YAML } from '../helpers/calc-fixtures.ts';
import { quizCard } from './quiz-fixture.ts';

const spec = parseCalc(TPOT_CALC_YAML, 3, 'cards/metrics.md').spec as CalcSpec;

function card(id: string) {
  return { ...quizCard(id, { front: 'TTFT {ttft} s, {n} tokens, done at {total} s. TPOT?', back: 'Decode time over the tokens.', calc: spec }), full: 'Whole: {ttft} s' };
}

const noKey: CalcKey = { return: false, backspace: false, delete: false, ctrl: false, meta: false, tab: false, escape: false, upArrow: false, downArrow: false, pageUp: false, pageDown: false };

describe('a calc card in kb review', () => {
  it('draws the same values all day for a card, and they are values the block can draw', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]{12}$/), fc.date({ min: new Date(2020, 0, 1), max: new Date(2030, 0, 1), noInvalidDate: true }), (id, date) => {
        const day = date.toISOString().slice(0, 10);
        const question = dailyCalc(card(id), day)!;
        expect(dailyCalc(card(id), day)).toEqual(question);
        expect(dailyFront(card(id), day)).toBe(question.prompt);
        const { ttft, n, total } = question.values!;
        expect([50, 100, 200]).toContain(n);
        expect(ttft).toBeGreaterThanOrEqual(0.2);
        expect(ttft).toBeLessThanOrEqual(1.0);
        expect(total).toBeCloseTo(ttft + n * 0.02, 9);
        expect(question.prompt).not.toMatch(/\{\w+\}/);
      }),
      { numRuns: 100 },
    );
  });

  it('draws other values on other days and for other cards', () => {
    const days = Array.from({ length: 30 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`);
    expect(new Set(days.map((day) => dailyFront(card('abc'), day))).size).toBeGreaterThan(5);
    expect(new Set(['a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'g7', 'h8'].map((id) => dailyFront(card(id), '2026-03-10'))).size).toBeGreaterThan(3);
  });

  it('fills the back with the worked explain line and the answer text, and the whole card', () => {
    const question = dailyCalc(card('abc'), '2026-03-10')!;
    const faces = calcFaces(card('abc'), question);
    const { ttft, n, total } = question.values!;
    expect(faces.back).toContain(`TPOT = (total - TTFT) / n = (${total} - ${ttft}) / ${n} s = `);
    expect(faces.back).toContain('Decode time over the tokens.');
    expect(faces.full).toBe(`Whole: ${ttft} s`);
    expect(dailyCalc({ ...card('abc'), calc: null }, '2026-03-10')).toBeNull();
  });

  it('checks a typed answer in any unit, suggests Good or Again, and asks again for what it cannot read', () => {
    const question = dailyCalc(card('abc'), '2026-03-10')!;
    const ms = question.expected!;
    expect(checkTyped(question, `${ms}`)).toMatchObject({ kind: 'checked', correct: true, suggested: 3 });
    expect(checkTyped(question, `${ms / 1000} s`)).toMatchObject({ kind: 'checked', correct: true, suggested: 3 });
    const wrong = checkTyped(question, `${ms * 2} ms`);
    expect(wrong).toMatchObject({ kind: 'checked', correct: false, suggested: 1 });
    expect(wrong.kind === 'checked' && wrong.verdict).toMatch(/^✗ Wrong: you typed .* the answer is \d+(\.\d+)? ms \(±1%\)$/);
    expect(checkTyped(question, '20 GB')).toMatchObject({ kind: 'retry' });
    expect(checkTyped(question, 'twenty')).toMatchObject({ kind: 'retry' });
  });

  it('takes a ratio typed with x or × on a card without a unit, as its worked answer writes it', () => {
    const ratio = parseCalc('vars:\n  off: { choose: [700] }\n  on: { choose: [60] }\nanswer: off / on\ntolerance: 2%\nexplain: "{off} / {on} = {answer}x"\n', 3, 'cards/x.md').spec as CalcSpec;
    const question = dailyCalc({ ...card('abc'), calc: ratio }, '2026-03-10')!;
    expect(checkTyped(question, '11.7x')).toMatchObject({ kind: 'checked', correct: true });
    // A bare number on a card without a unit is shown once ("you typed 12 = 12" said it twice),
    // and the verdict says how close an answer must be (12 for 11.67 is 2.9% off).
    expect(checkTyped(question, '12')).toMatchObject({ kind: 'checked', correct: false, verdict: '✗ Wrong: you typed 12; the answer is 11.67 (±2%)' });
    const replicas = parseCalc('vars:\n  lam: { choose: [110] }\n  cap: { choose: [8] }\nanswer: ceil(lam / cap)\nunit: replicas\ntolerance: 0\n', 3, 'cards/x.md').spec as CalcSpec;
    const count = dailyCalc({ ...card('abc'), calc: replicas }, '2026-03-10')!;
    expect(checkTyped(count, '13.75')).toMatchObject({ kind: 'checked', correct: false, verdict: '✗ Wrong: you typed 13.75 = 13.75 replicas; the answer is 14 replicas, exactly' });
    expect(checkTyped(count, '14')).toMatchObject({ kind: 'checked', correct: true });
    expect(checkTyped(question, '11.7 ×')).toMatchObject({ kind: 'checked', correct: true });
  });
});

describe('the answer line keys', () => {
  it('leaves review keys alone until a number starts, then takes every printable key', () => {
    for (const input of [' ', 'b', 's', 'f', 'u', 'q', 'l', 'e', '?']) expect(calcKey('', input, noKey)).toEqual({ kind: 'pass' });
    expect(calcKey('', '\r', { ...noKey, return: true })).toEqual({ kind: 'pass' });
    expect(calcKey('', '2', noKey)).toEqual({ kind: 'type', typed: '2' });
    expect(calcKey('', '.5', noKey)).toEqual({ kind: 'type', typed: '.5' });
    // A full-width digit (a Chinese input method) starts a number too: it was dropped silently.
    expect(calcKey('', '\uff13', noKey)).toEqual({ kind: 'type', typed: '\uff13' });
    expect(calcKey('0.5', ' ', noKey)).toEqual({ kind: 'type', typed: '0.5 ' });
    expect(calcKey('0.5 ', 's', noKey)).toEqual({ kind: 'type', typed: '0.5 s' });
    expect(calcKey('0.5 s', '', { ...noKey, backspace: true })).toEqual({ kind: 'type', typed: '0.5 ' });
    expect(calcKey('0.5 s', '', { ...noKey, escape: true })).toEqual({ kind: 'type', typed: '' });
    expect(calcKey('20', '', { ...noKey, downArrow: true })).toEqual({ kind: 'pass' });
    expect(calcKey('20', 'c', { ...noKey, ctrl: true })).toEqual({ kind: 'pass' });
  });

  it('submits on Enter, also inside a pasted chunk', () => {
    expect(calcKey('20', '\r', { ...noKey, return: true })).toEqual({ kind: 'submit', typed: '20' });
    expect(calcKey('', '40ms\r', noKey)).toEqual({ kind: 'submit', typed: '40ms' });
  });
});
