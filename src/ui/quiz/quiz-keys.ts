// The keys of kb quiz as a pure function: the phase of the question on screen and the key
// pressed in, the command to carry out. QuizScreen.tsx only executes commands.
import { editLine, type LineKey } from './AnswerInput.tsx';
import { NUMBER_START } from '../review/calc-keys.ts';

export type QuizPhase = 'ask' | 'reveal' | 'result' | 'end';

export interface QuizKeyView {
  phase: QuizPhase;
  /** The card lab panel is open: it takes the keys. */
  labOpen: boolean;
  hasQuestion: boolean;
  /** The question wants a typed number (a calc card). */
  calc: boolean;
  typed: string;
  /** Rows a page key scrolls. */
  pageRows: number;
  /** The key list (?) is on screen. */
  keysShown?: boolean;
}

export type QuizCommand =
  | { kind: 'close' }
  | { kind: 'lab-key' }
  | { kind: 'interrupt' }
  | { kind: 'to-shell' }
  | { kind: 'finish' }
  | { kind: 'open-lab' }
  | { kind: 'scroll'; by: number }
  | { kind: 'next' }
  | { kind: 'grade'; correct: boolean }
  | { kind: 'reveal' }
  | { kind: 'keys' }
  | { kind: 'hide-keys' }
  | { kind: 'type'; typed: string; submit: boolean };

export interface QuizKey extends LineKey {
  escape: boolean;
  upArrow: boolean;
  downArrow: boolean;
  pageUp: boolean;
  pageDown: boolean;
}

export function quizKey(view: QuizKeyView, input: string, key: QuizKey): QuizCommand | null {
  const { phase } = view;
  // Ctrl-Z: back to the shell, whatever the screen shows (fg returns to it).
  if (key.ctrl && input === 'z') return { kind: 'to-shell' };
  // Ctrl-C on the end screen too: it did nothing there (found as a user).
  if (phase === 'end') return key.ctrl && input === 'c' ? { kind: 'interrupt' } : input === 'q' || key.return || key.escape ? { kind: 'close' } : null;
  if (view.labOpen) return { kind: 'lab-key' };
  if (key.ctrl && input === 'c') return { kind: 'interrupt' }; // kb exits 130
  // As in kb review, any key hides the key list and does nothing else (Space went on to show
  // the answer under it, and the list stayed: found as a user).
  if (view.keysShown) return { kind: 'hide-keys' };
  // As in kb review: until a number is being typed, q, l, j and k act as keys; once it is,
  // every printable key belongs to it ("0.5 s" has an s) and Esc clears it. (q was typed into
  // an empty answer, and Esc on a half-typed one ended the quiz: found as a user.)
  const typing = phase === 'ask' && view.calc && view.typed !== '';
  if (typing && key.escape) return { kind: 'type', typed: '', submit: false };
  if (key.escape || (input === 'q' && !typing)) return { kind: 'finish' };
  if (!view.hasQuestion) return null;
  // As in kb review, ? lists the keys (it did nothing, with no word why: found as a user).
  if (!typing && input === '?') return { kind: 'keys' };
  if (!typing && input === 'l') return { kind: 'open-lab' };
  const scrollBy = key.downArrow || (!typing && input === 'j') ? 1 : key.upArrow || (!typing && input === 'k') ? -1
    : key.pageDown ? view.pageRows : key.pageUp ? -view.pageRows : 0;
  if (scrollBy !== 0) return { kind: 'scroll', by: scrollBy };
  if (phase === 'result') return key.return || input === ' ' ? { kind: 'next' } : null;
  if (phase === 'reveal') {
    if (input === 'y' || input === '3') return { kind: 'grade', correct: true };
    if (input === 'n' || input === '1') return { kind: 'grade', correct: false };
    return null;
  }
  if (!view.calc) return key.return || input === ' ' ? { kind: 'reveal' } : null;
  // Before a number starts, another letter is no key here.
  if (!typing && !key.return && !NUMBER_START.test(input)) return null;
  const edited = editLine(view.typed, input, key);
  return { kind: 'type', typed: edited.line, submit: edited.submit };
}
