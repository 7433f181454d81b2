// The keys of a calc card in kb review, before its answer shows. A number is typed as in kb
// quiz (Enter checks it); the review keys still work until typing starts, so Space shows the
// worked answer to someone who only wants to read, and b, s, e, f, l, u, q act as on any card.
// Once a number is being typed every printable key belongs to it ("0.5 s" has an s), and Esc
// clears it.
import { editLine, type LineKey } from '../quiz/AnswerInput.tsx';

export interface CalcKey extends LineKey {
  escape: boolean;
  upArrow: boolean;
  downArrow: boolean;
  pageUp: boolean;
  pageDown: boolean;
}

export type CalcStep =
  /** Not the answer's key: the review screen handles it as on any card. */
  | { kind: 'pass' }
  | { kind: 'type'; typed: string }
  | { kind: 'submit'; typed: string };

/**
 * What can start a number: a digit, a sign or a decimal point, also full-width as a Chinese or
 * Japanese input method types them (０-９ ． ＋ －; the answer is read through NFKC). They were
 * dropped without a word, so such a learner saw nothing happen. And ~ or ≈ (also full-width ～),
 * which an estimate starts with (~3.4 ms): the answer reads past it.
 */
export const NUMBER_START = /^[0-9.+\-~\u2248\uff10-\uff19\uff0e\uff0b\uff0d\uff5e]/;

export function calcKey(typed: string, input: string, key: CalcKey): CalcStep {
  if (key.ctrl && input === 'c') return { kind: 'pass' };
  if (key.upArrow || key.downArrow || key.pageUp || key.pageDown) return { kind: 'pass' };
  if (typed === '') {
    if (!NUMBER_START.test(input) || key.ctrl || key.meta) return { kind: 'pass' };
  } else if (key.escape) {
    return { kind: 'type', typed: '' };
  }
  const edited = editLine(typed, input, key);
  if (!edited.submit) return { kind: 'type', typed: edited.line };
  // Enter on an emptied line shows the answer, as on any card.
  return edited.line.trim() === '' ? { kind: 'pass' } : { kind: 'submit', typed: edited.line };
}
