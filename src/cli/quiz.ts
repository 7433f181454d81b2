// kb quiz: the interview drill. Cards drawn toward what the learner knows least; calc cards
// with fresh values and a typed number; text cards revealed and self-graded. Answers are
// stored in quiz_results; only --schedule lets them move the FSRS schedule.
import { Option, type Command } from 'commander';
import { ExitCode, UserError } from './errors.ts';
import { checkFilter } from './filter-check.ts';
import { countOption, numberOption } from './number-option.ts';
import { helpText } from './help-layout.ts';
import { fittedToTerminal, terminalColumns } from './terminal-output.ts';

interface QuizFlags {
  tag?: string;
  deck?: string;
  count: string;
  time?: string;
  seed?: string;
  schedule?: boolean;
  calc?: boolean;
  json?: boolean;
}

// Within 80 columns with kb's "kb: " before it, as kb review's.
const NOT_A_TERMINAL = `kb quiz needs a terminal: it is interactive (stdin or stdout is no TTY).
From a script or a pipe, use kb quiz --json: it writes each question as a JSON
line and reads one answer a line from stdin (a number, with its unit or not,
for calc cards; y or 3, n or 1 for text cards).`;

export function register(program: Command): void {
  program
    .command('quiz')
    .description('drill: questions drawn toward what you know least; calc cards with fresh values and typed answers, scored at the end')
    .addOption(new Option('--tag <tag>', 'only cards with this tag (or a sub-tag)'))
    .addOption(new Option('--deck <deck>', 'only cards of this deck (a notes/ topic or a cards/ file name)'))
    .addOption(numberOption('-n, --count <n>', 'number of questions at most (fewer when fewer cards match: the quiz says so)', 10))
    .addOption(new Option('--time <duration>', 'time per question, e.g. 45s, 2m or 90 (seconds); too late counts as wrong'))
    .addOption(new Option('--seed <seed>', 'seed for the draw (cards and values): the same session again while the cards are as they were (--schedule changes them, and so the next draw)'))
    .addOption(new Option('--calc', 'only calculation (kb-calc) cards'))
    .addOption(new Option('--schedule', 'let answers move the review schedule: wrong = Again, right = Good'))
    .addOption(new Option('--json', 'non-interactive: JSON lines out (questions, answers, summary), one answer per line in'))
    .addHelpText(
      'after',
      helpText(`
Calc cards: type the number, with or without a unit: 20, 20ms, 0.02 s, 2.4 GB, 1,024, 1.5e3,
50%, 11.7x (a ratio), 800 TPS or 685.7 t/s (tokens/s), 1.6 QPS or RPS (req/s), 25 ms/token or 25ms per token (the card's unit per token, request, sequence, step or pass; 25 per token too), units written out (25 milliseconds, 2 gigabytes, 685.7 tokens per second), a leading ~ or ≈ read past (~3.4 ms); full-width digits as a Chinese input method types them (２５ｍｓ) too, and Chinese unit names: 纳秒, 微秒, 毫秒, 秒, 分钟 (分), 小时, 字节, 比特, 词元, 请求, 参数, 倍 and more (25毫秒, 100个token, 1200词元/秒), and the numerals 千, 万, 亿 (70亿参数, 1.2万 tokens/s). Letter case counts where it changes the amount: 25 Ms (megaseconds) or 7m tokens is asked again (did you mean ms?), never read 10^6 off; a bare 1.5k is read on a size or a count, not on a time. On a card in %, a bare number in (0, 1] (0.7086) is asked again, as the fraction it may be: type 70.86 for 70.86 %, or 0.7086 % if you mean that. It is converted to the card's unit and checked against the card's tolerance (a wrong answer is told it: the answer is 45.71 ms (±2%)); a unit
that does not fit (GB for a time) asks again. The worked solution follows, with the values
filled in. Text cards: Space shows the answer, then y or 3 (knew it), n or 1 (did not).
l on a card linked to a lab (not while typing a number) runs the lab in place with its
own settings, as kb lab <name> would: a progress bar (Esc stops it; the partial run is
stored), then the chart if any and each expectation with its measured value; any other
key (j/k scroll) returns to the question as it was, and the lab's time counts neither
toward the answer time nor the --time countdown. A card's answer shows its lab's latest
stored result.
Results are stored (kb stats shows quiz accuracy by tag); the review schedule moves only
with --schedule. Esc or q ends the quiz with its score (on a calc question with a number
typed, q is typed and Esc clears it first); Ctrl-Z goes back to the shell (fg returns).
NO_COLOR (set, not empty) draws the screen without colours, bold and underline kept.

--json protocol, one JSON object per line on stdout:
  session (its "shortfall" says why there are fewer questions than -n, else
  null), then for each question: question (waits for one line on stdin: a
  calc card's number, a text card's y, yes or 3 if you knew it, n, no or 1 if
  not), retry (the line could not be read; send another), answer; finally
  summary (also when stdin ends; on Ctrl-C or SIGTERM with "interrupted": true
  for the answers given, and exit 130).
Example (bundled knowledge base: a TPOT of 25 ms):
  printf '25ms\\n' | kb quiz --json --calc --deck metrics -n 1 --seed 7`),
    )
    .action(async (flags: QuizFlags, command: Command) => {
      const request = await quizRequest(flags);
      if (!flags.json && (!process.stdin.isTTY || !process.stdout.isTTY)) throw new UserError(NOT_A_TERMINAL, ExitCode.noTerminal);
      const { openScannedKnowledgeBase, screenNotice } = await import('./context.ts');
      const { QuizRun, NoQuizCardsError } = await import('../app/quiz/quiz-run.ts');
      const kb = await openScannedKnowledgeBase({ kb: command.optsWithGlobals().kb });
      try {
        checkFilter(request, kb.db);
        let run;
        try {
          run = new QuizRun(kb, request, Date.now());
        } catch (error) {
          if (error instanceof NoQuizCardsError) throw new UserError(error.message);
          throw error;
        }
        if (flags.json) {
          const { runJsonQuiz, stdioJsonQuiz } = await import('./quiz-json.ts');
          const io = stdioJsonQuiz();
          try {
            // Stopped by Ctrl-C or SIGTERM: the summary is written all the same, and kb exits 130.
            if ((await runJsonQuiz(run, io)).interrupted) process.exitCode = ExitCode.interrupted;
          } finally {
            io.close();
          }
          return;
        }
        const [{ renderQuiz }, { cardLabRunner }] = await Promise.all([import('../ui/quiz/render-quiz.tsx'), import('../app/card-labs/card-lab-runner.ts')]);
        run.labs = cardLabRunner(kb.db, kb.root);
        // The summary line within the width fittedToTerminal keeps to, so it breaks between tags.
        // Fewer cards than -n said: told before the first question, in the message row.
        const notice = [screenNotice(kb), run.shortfall].filter((line) => line != null).join('; ') || undefined;
        const summary = await renderQuiz(run, (terminalColumns() ?? 80) - 1, notice);
        process.stdout.write(`${await fittedToTerminal(summary.line)}\n`);
        if (summary.interrupted) process.exitCode = ExitCode.interrupted;
      } finally {
        kb.db.close();
      }
    });
}

async function quizRequest(flags: QuizFlags) {
  const count = countOption('--count', flags.count, 'questions');
  let timeLimitMs: number | null = null;
  if (flags.time !== undefined) {
    const { parseDuration } = await import('../app/quiz/quiz-units.ts');
    timeLimitMs = parseDuration(flags.time);
    if (timeLimitMs === null) throw new UserError(`--time: "${flags.time}" is not a duration (45s, 2m, 1m30s, 90 for seconds)`);
  }
  return {
    tag: flags.tag,
    deck: flags.deck,
    count,
    timeLimitMs,
    seed: flags.seed === undefined ? randomSeed() : seedFrom(flags.seed),
    schedule: flags.schedule === true,
    calcOnly: flags.calc === true,
  };
}

function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

/** A whole number is the seed itself; any other text is hashed (FNV-1a), so --seed monday works. */
function seedFrom(text: string): number {
  if (/^\d+$/.test(text)) return Number(BigInt(text) % 4294967296n);
  let hash = 0x811c9dc5;
  for (const char of text) {
    hash ^= char.codePointAt(0) as number;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
