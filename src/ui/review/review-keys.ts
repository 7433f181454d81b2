// The keys of kb review as a pure function: what the screen is showing and the key pressed
// in, the command to carry out. The screen (ReviewScreen.tsx) only executes commands, so
// every key binding is here, testable without a terminal.
import type { Grade } from '../../model/fsrs-state.ts';
import { calcKey, type CalcKey } from './calc-keys.ts';

export interface ReviewKeyView {
  /** An editor or a reload is running: keys wait. */
  busy: boolean;
  /** The card lab panel is open: it takes the keys. */
  labOpen: boolean;
  /** The key list (`?`) is shown: Esc closes it rather than the session. */
  helpOpen?: boolean;
  /** The key list is taller than the screen: the scroll keys scroll it instead of hiding it. */
  helpScrolls?: boolean;
  /** A card is on screen (not the summary or a wait). */
  hasCard: boolean;
  /** The card asks for a typed number (a calc card). */
  calc: boolean;
  /** The card is a note's, so f has a whole note to show (a deck card's has none). */
  note?: boolean;
  revealed: boolean;
  /** What has been typed into a calc card's answer line. */
  typed: string;
  /** The grade a checked calc answer suggests (Again when wrong); Space and Enter take it. */
  suggested?: Grade;
  /** Rows a page key scrolls. */
  pageRows: number;
}

export type ReviewCommand =
  | { kind: 'lab-key' }
  | { kind: 'type'; typed: string }
  | { kind: 'check'; typed: string }
  | { kind: 'quit'; interrupted: boolean }
  | { kind: 'to-shell' }
  | { kind: 'toggle-help' }
  | { kind: 'undo' }
  | { kind: 'scroll'; by: number }
  | { kind: 'scroll-help'; by: number }
  | { kind: 'toggle-full' }
  | { kind: 'bury' }
  | { kind: 'suspend' }
  | { kind: 'edit' }
  | { kind: 'open-lab' }
  | { kind: 'reveal' }
  | { kind: 'hint'; message: string }
  | { kind: 'rate'; grade: Grade };

export interface ReviewKeyResult {
  command: ReviewCommand | null;
  /** A key pressed while the key list is shown hides it, and does nothing else (Ctrl-C aside). */
  hideHelp: boolean;
}

export const NO_NOTE = 'f: a deck card has no note behind it; this is all of it';

const LETTER_COMMANDS: Record<string, ReviewCommand> = {
  f: { kind: 'toggle-full' },
  b: { kind: 'bury' },
  s: { kind: 'suspend' },
  e: { kind: 'edit' },
  l: { kind: 'open-lab' },
};

export function reviewKey(view: ReviewKeyView, input: string, key: CalcKey & { return: boolean }): ReviewKeyResult {
  const only = (command: ReviewCommand | null): ReviewKeyResult => ({ command, hideHelp: false });
  if (view.busy) return only(null);
  // Ctrl-Z: back to the shell, whatever the screen shows (fg returns to it).
  if (key.ctrl && input === 'z') return only({ kind: 'to-shell' });
  if (view.labOpen) return only({ kind: 'lab-key' });
  // The key list covers the card: a key pressed over it only hides it (it rated or suspended the
  // card behind it, found as a user), but the scroll keys scroll a list taller than the screen
  // (where it fits, they hide it too: it says "any key", and j did nothing). Ctrl-C still quits.
  if (view.helpOpen) {
    const by = view.helpScrolls ? scrollKey(input, key, view.pageRows) : 0;
    if (by !== 0) return only({ kind: 'scroll-help', by });
    return { command: key.ctrl && input === 'c' ? { kind: 'quit', interrupted: true } : null, hideHelp: true };
  }
  if (view.hasCard && view.calc && !view.revealed) {
    const step = calcKey(view.typed, input, key);
    if (step.kind === 'type') return only({ kind: 'type', typed: step.typed });
    if (step.kind === 'submit') return only({ kind: 'check', typed: step.typed });
  }
  if (input === 'q' || key.escape || (key.ctrl && input === 'c')) return only({ kind: 'quit', interrupted: key.ctrl });
  if (input === '?') return only({ kind: 'toggle-help' });
  if (input === 'u') return only({ kind: 'undo' });
  if (!view.hasCard) return only(null);
  const by = scrollKey(input, key, view.pageRows);
  if (by !== 0) return only({ kind: 'scroll', by });
  // Said, not silent: f did nothing on a deck card (found as a user).
  if (input === 'f' && view.note === false) return only({ kind: 'hint', message: NO_NOTE });
  const letter = LETTER_COMMANDS[input];
  if (letter) return only(letter);
  if (!view.revealed) {
    if (input === ' ' || key.return) return only({ kind: 'reveal' });
    if (/^[1-4]$/.test(input)) return only({ kind: 'hint', message: 'Space shows the answer first' });
    return only(null);
  }
  // Space and Enter: Good, or what a checked calc answer suggests (Again when wrong).
  if (input === ' ' || key.return) return only({ kind: 'rate', grade: view.suggested ?? 3 });
  if (/^[1-4]$/.test(input)) return only({ kind: 'rate', grade: Number(input) as Grade });
  return only(null);
}

/** Rows a scroll key moves (j k, arrows, PgUp PgDn), 0 for any other key. */
function scrollKey(input: string, key: CalcKey, pageRows: number): number {
  if (input === 'j' || key.downArrow) return 1;
  if (input === 'k' || key.upArrow) return -1;
  if (key.pageDown) return pageRows;
  if (key.pageUp) return -pageRows;
  return 0;
}
