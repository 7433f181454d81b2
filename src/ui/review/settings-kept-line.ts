// The status line kb review shows when kb.json was made invalid during the session.
import stringWidth from 'string-width';

/**
 * One line that fits 80 columns, naming the problem (the key) where it fits; any other kb
 * command prints the whole error.
 */
export function settingsKeptLine(problem: string): string {
  const line = `kb.json now invalid (${problem}); this session keeps its settings`;
  return stringWidth(line) <= 80 ? line : 'kb.json now invalid; this session keeps its settings (kb due says why)';
}
