import { describe, expect, it } from 'vitest';
import { NO_NOTE, reviewKey, type ReviewKeyView } from '../../src/ui/review/review-keys.ts';
import { quizKey, type QuizKeyView } from '../../src/ui/quiz/quiz-keys.ts';

const noKey = { return: false, escape: false, ctrl: false, meta: false, tab: false, backspace: false, delete: false, upArrow: false, downArrow: false, pageUp: false, pageDown: false };
const review: ReviewKeyView = { busy: false, labOpen: false, hasCard: true, calc: false, revealed: false, typed: '', pageRows: 10 };

describe('kb review keys', () => {
  it('Space reveals, then rates Good; 1-4 rate once revealed and only hint before', () => {
    expect(reviewKey(review, ' ', noKey).command).toEqual({ kind: 'reveal' });
    expect(reviewKey(review, '2', noKey).command).toEqual({ kind: 'hint', message: 'Space shows the answer first' });
    expect(reviewKey({ ...review, revealed: true }, ' ', noKey).command).toEqual({ kind: 'rate', grade: 3 });
    expect(reviewKey({ ...review, revealed: true }, '1', noKey).command).toEqual({ kind: 'rate', grade: 1 });
    expect(reviewKey({ ...review, revealed: true, suggested: 1 }, '', { ...noKey, return: true }).command).toEqual({ kind: 'rate', grade: 1 });
  });

  it('a calc card takes typed digits and letters once typing started, and Enter checks them', () => {
    const calc = { ...review, calc: true };
    expect(reviewKey(calc, '4', noKey).command).toEqual({ kind: 'type', typed: '4' });
    expect(reviewKey({ ...calc, typed: '0.5 ' }, 's', noKey).command).toEqual({ kind: 'type', typed: '0.5 s' });
    expect(reviewKey({ ...calc, typed: '20' }, '', { ...noKey, return: true }).command).toEqual({ kind: 'check', typed: '20' });
    expect(reviewKey(calc, 's', noKey).command).toEqual({ kind: 'suspend' });
  });

  it('f shows the whole note of a note\'s card; on a deck card it says there is none', () => {
    expect(reviewKey({ ...review, note: true }, 'f', noKey).command).toEqual({ kind: 'toggle-full' });
    expect(reviewKey({ ...review, note: false, revealed: true }, 'f', noKey).command).toEqual({ kind: 'hint', message: NO_NOTE });
  });

  it('help closes on any later key but not on ? itself; a busy screen and the lab panel keep their keys', () => {
    expect(reviewKey(review, '?', noKey)).toEqual({ command: { kind: 'toggle-help' }, hideHelp: false });
    expect(reviewKey(review, 'x', noKey)).toEqual({ command: null, hideHelp: false });
    expect(reviewKey({ ...review, busy: true }, '3', noKey)).toEqual({ command: null, hideHelp: false });
    expect(reviewKey({ ...review, labOpen: true }, 'q', noKey).command).toEqual({ kind: 'lab-key' });
    expect(reviewKey(review, 'c', { ...noKey, ctrl: true }).command).toEqual({ kind: 'quit', interrupted: true });
    // Esc closes the key list when it is shown, and the session otherwise.
    expect(reviewKey({ ...review, helpOpen: true }, '', { ...noKey, escape: true })).toEqual({ command: null, hideHelp: true });
    expect(reviewKey(review, '', { ...noKey, escape: true }).command).toEqual({ kind: 'quit', interrupted: false });
    // Over the key list, any key only hides it: it rated or suspended the card behind it (found
    // as a user), and typed into a calc answer no one could see. Ctrl-C still quits.
    for (const [input, view] of [['3', { ...review, revealed: true }], ['s', review], ['q', review], ['?', review], ['4', { ...review, calc: true }]] as const) {
      expect(reviewKey({ ...view, helpOpen: true }, input, noKey)).toEqual({ command: null, hideHelp: true });
    }
    expect(reviewKey({ ...review, helpOpen: true }, 'c', { ...noKey, ctrl: true }).command).toEqual({ kind: 'quit', interrupted: true });
    // The scroll keys scroll a key list taller than the screen, and hide one that fits like any
    // other key (it says "any key hides this help", and j did nothing).
    for (const [input, key] of [['j', noKey], ['k', noKey], ['', { ...noKey, downArrow: true }], ['', { ...noKey, upArrow: true }], ['', { ...noKey, pageDown: true }]] as const) {
      expect(reviewKey({ ...review, helpOpen: true }, input, key)).toEqual({ command: null, hideHelp: true });
    }
    expect(reviewKey({ ...review, helpOpen: true, helpScrolls: true }, 'j', noKey)).toEqual({ command: { kind: 'scroll-help', by: 1 }, hideHelp: false });
    expect(reviewKey({ ...review, helpOpen: true, helpScrolls: true }, '', { ...noKey, upArrow: true })).toEqual({ command: { kind: 'scroll-help', by: -1 }, hideHelp: false });
    expect(reviewKey({ ...review, helpOpen: true, helpScrolls: true }, 'x', noKey)).toEqual({ command: null, hideHelp: true });
    // Ctrl-Z goes back to the shell from any screen, a calc answer being typed and the lab panel included.
    for (const view of [review, { ...review, calc: true, typed: '0.5' }, { ...review, labOpen: true }, { ...review, hasCard: false }]) {
      expect(reviewKey(view, 'z', { ...noKey, ctrl: true }).command).toEqual({ kind: 'to-shell' });
    }
    expect(reviewKey({ ...review, hasCard: false }, 'u', noKey).command).toEqual({ kind: 'undo' });
    expect(reviewKey({ ...review, hasCard: false }, 'b', noKey).command).toBeNull();
    expect(reviewKey(review, '', { ...noKey, pageDown: true }).command).toEqual({ kind: 'scroll', by: 10 });
  });
});

const quiz: QuizKeyView = { phase: 'ask', labOpen: false, hasQuestion: true, calc: false, typed: '', pageRows: 8 };

describe('kb quiz keys', () => {
  it('a text card reveals on Space, is graded y/n (3/1), and the result goes on with Enter', () => {
    expect(quizKey(quiz, ' ', noKey)).toEqual({ kind: 'reveal' });
    expect(quizKey({ ...quiz, phase: 'reveal' }, 'y', noKey)).toEqual({ kind: 'grade', correct: true });
    expect(quizKey({ ...quiz, phase: 'reveal' }, '1', noKey)).toEqual({ kind: 'grade', correct: false });
    expect(quizKey({ ...quiz, phase: 'reveal' }, ' ', noKey)).toBeNull();
    expect(quizKey({ ...quiz, phase: 'result' }, '', { ...noKey, return: true })).toEqual({ kind: 'next' });
  });

  it('a calc question, as kb review: q, j, k and l are keys until a number is typed, then text; Esc clears it, then ends the quiz', () => {
    const calc = { ...quiz, calc: true, typed: '0.' };
    expect(quizKey(calc, 'q', noKey)).toEqual({ kind: 'type', typed: '0.q', submit: false });
    expect(quizKey(calc, 'l', noKey)).toEqual({ kind: 'type', typed: '0.l', submit: false });
    expect(quizKey({ ...calc, typed: '0.5' }, '', { ...noKey, return: true })).toEqual({ kind: 'type', typed: '0.5', submit: true });
    expect(quizKey(calc, '', { ...noKey, escape: true })).toEqual({ kind: 'type', typed: '', submit: false });
    const empty = { ...calc, typed: '' };
    expect(quizKey(empty, '', { ...noKey, escape: true })).toEqual({ kind: 'finish' });
    expect(quizKey(empty, 'q', noKey)).toEqual({ kind: 'finish' });
    expect(quizKey(empty, 'j', noKey)).toEqual({ kind: 'scroll', by: 1 });
    expect(quizKey(empty, 'x', noKey)).toBeNull();
    expect(quizKey(empty, '2', noKey)).toEqual({ kind: 'type', typed: '2', submit: false });
    // A full-width digit (a Chinese input method) starts a number too: it was dropped silently.
    expect(quizKey(empty, '\uff12', noKey)).toEqual({ kind: 'type', typed: '\uff12', submit: false });
    expect(quizKey(empty, '\uff0e\uff15', noKey)).toEqual({ kind: 'type', typed: '\uff0e\uff15', submit: false });
    // So does the ~ or ≈ of an estimate (~3.4 ms), which the answer reads past: it was dropped.
    expect(quizKey(empty, '~', noKey)).toEqual({ kind: 'type', typed: '~', submit: false });
    expect(quizKey(empty, '\u2248', noKey)).toEqual({ kind: 'type', typed: '\u2248', submit: false });
    expect(quizKey(quiz, 'q', noKey)).toEqual({ kind: 'finish' });
    expect(quizKey(quiz, 'j', noKey)).toEqual({ kind: 'scroll', by: 1 });
    // ? lists the keys, as in kb review (it did nothing); in a number being typed it is text.
    expect(quizKey(quiz, '?', noKey)).toEqual({ kind: 'keys' });
    expect(quizKey(empty, '?', noKey)).toEqual({ kind: 'keys' });
    expect(quizKey(calc, '?', noKey)).toEqual({ kind: 'type', typed: '0.?', submit: false });
    // Shown, the list goes with the next key, which does nothing else; Ctrl-C still quits.
    expect(quizKey({ ...quiz, keysShown: true }, ' ', noKey)).toEqual({ kind: 'hide-keys' });
    expect(quizKey({ ...calc, keysShown: true }, '5', noKey)).toEqual({ kind: 'hide-keys' });
    expect(quizKey({ ...quiz, keysShown: true }, 'c', { ...noKey, ctrl: true })).toEqual({ kind: 'interrupt' });
  });

  it('the end screen closes on q, Enter or Esc; Ctrl-C interrupts; the lab panel keeps its keys', () => {
    expect(quizKey({ ...quiz, phase: 'end' }, 'q', noKey)).toEqual({ kind: 'close' });
    expect(quizKey({ ...quiz, phase: 'end' }, 'x', noKey)).toBeNull();
    // Ctrl-C quits (130) from the end screen as from any other (it did nothing there).
    expect(quizKey({ ...quiz, phase: 'end' }, 'c', { ...noKey, ctrl: true })).toEqual({ kind: 'interrupt' });
    expect(quizKey(quiz, 'c', { ...noKey, ctrl: true })).toEqual({ kind: 'interrupt' });
    expect(quizKey(quiz, 'z', { ...noKey, ctrl: true })).toEqual({ kind: 'to-shell' });
    expect(quizKey({ ...quiz, labOpen: true }, 'q', noKey)).toEqual({ kind: 'lab-key' });
  });
});
