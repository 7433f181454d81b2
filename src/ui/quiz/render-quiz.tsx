// Mounts the quiz screen on the terminal (alternate screen) and returns the summary line to
// print once it is gone.
import { render } from 'ink';
import { QuizScreen, type QuizDriver } from './QuizScreen.tsx';
import { quizSummaryLine } from './quiz-text.ts';
import { wasInterrupted } from '../screen-input.ts';
import { screenStream } from '../text/no-color.ts';

/**
 * The summary line to print (within `width` cells: broken between its tags where it is wider),
 * and whether the quiz ended by Ctrl-C (kb exits 130).
 */
export async function renderQuiz(driver: QuizDriver, width: number, notice?: string): Promise<{ line: string; interrupted: boolean }> {
  let endedAt: number | null = null;
  const app = render(<QuizScreen driver={driver} notice={notice} onFinish={(at) => (endedAt = at)} />, {
    alternateScreen: true,
    // The caller checked for a terminal. Ink would otherwise draw nothing until exit whenever
    // CI is set in the environment (a developer's shell, a test runner inside CI).
    interactive: true,
    // The screen handles Ctrl-C: it quits, or stops a lab running in place (stored as partial).
    exitOnCtrlC: false,
    // Under NO_COLOR drawn without colours (no-color.ts).
    stdout: screenStream(process.stdout),
  });
  const interrupted = wasInterrupted(await app.waitUntilExit());
  return { line: quizSummaryLine(driver.summary(endedAt ?? Date.now()), width), interrupted };
}
