// kb review: the daily session in the terminal (Ink). Scripts use kb due / rate / undo.
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../kb/config.ts';
import { defaultEditor } from '../kb/editor.ts';
import { ExitCode, UserError } from './errors.ts';
import { checkFilter, unknownFilterProblem } from './filter-check.ts';
import { addQueueOptions, queueRequest, type QueueFlags } from './queue-options.ts';
import { helpText } from './help-layout.ts';
import { fittedToTerminal } from './terminal-output.ts';

const NOT_A_TERMINAL = `kb review needs a terminal: it is interactive (stdin or stdout is no TTY).
From a script or a pipe, use:
  kb due [--json]                              today's queue, with card ids
  kb rate <card-id> again|hard|good|easy       answer one card
  kb undo                                      take the latest answer back`;

export function register(program: Command): void {
  addQueueOptions(
    program
      .command('review')
      .description("today's review session: learning cards due now, due reviews, then new cards (FSRS scheduling)"),
  )
    .addHelpText(
      'after',
      helpText(`
Keys: Space/Enter show the answer (then Space/Enter = Good), 1-4 answer Again, Hard,
Good or Easy (each shows the interval it gives), f whole note, u undo, b bury until tomorrow,
s suspend, e edit in $EDITOR at the card's line, l run the card's lab here, ? help,
q quit, Ctrl-Z back to the shell (fg returns).
The editor: $VISUAL, else $EDITOR, else vi. The line goes as +LINE to vi, vim, nano, emacs,
micro and the like, as --goto FILE:LINE to code/codium, as FILE:LINE to subl, hx and zed;
any other editor (a script, gedit) gets the file alone. An editor that cannot be started
edits nothing, and one that fails is said on the status line.
Two kb review at once: a card the other one rated since this screen showed it is not
rated again here; the screen says so and moves on.
Notes edited in another editor meanwhile: a card whose file changed is read again when it
comes up and when its answer is shown (one stat tells); one whose file was deleted, or no
longer holds it or parses, is skipped (the status line names the file), never rated. A
note moved or renamed keeps its id and is shown from where it went.
Calc cards (a kb-calc block) ask with values drawn once per study day (kb due lists the
same numbers): type the number as in kb quiz (20, 20ms, 0.02 s, 2.4 GB) and Enter checks
it and shows the worked answer; Space/Enter then answer with the suggestion (Good when
right, Again when wrong), 1-4 as you judge. Space before typing shows the answer unchecked.
Labs: l on a card linked to a lab (a lab: line) runs it in place with the lab file's own
settings, as kb lab <name> would: a progress bar (Esc stops it; the partial run is
stored), then the chart if the lab has one and each expectation with its measured value;
any other key (j/k scroll a long report) returns to the card as it was. The lab's time
is not counted as time spent on the card. The card's back shows the lab's latest stored
result (verdict, how long ago, the first expectation's figure).
Each answer records the time taken (less time in the editor or stopped, at most 60 s).
Every answer is saved at once (one SQLite transaction) and mirrored into the note's
frontmatter (last_reviewed, next_review, review_count, mastery_level). mastery_level is
FSRS's probability of recall 30 days after the last review, given the card's stability
(0 for a new card), two decimals.
NO_COLOR (set, not empty) draws the screen without colours, bold and underline kept.
Without a terminal, use kb due, kb rate and kb undo.`),
    )
    .action(async (flags: QueueFlags, command: Command) => {
      const request = queueRequest(flags);
      if (!process.stdin.isTTY || !process.stdout.isTTY) throw new UserError(NOT_A_TERMINAL, ExitCode.noTerminal);
      const startedAt = Date.now();
      const { openKnowledgeBase, scanChangedCards, scanOpened, scanProblems, screenNotice } = await import('./context.ts');
      const kb = openKnowledgeBase({ kb: command.optsWithGlobals().kb });
      const scan = async () => (await import('../app/scan/scan-kb.ts')).scanKnowledgeBase(kb);
      // The first card is drawn from the database as it stands, and the files are scanned
      // right after it (the queue is rebuilt if a card changed): the scan is off the path to
      // the first card. A knowledge base never scanned before is scanned first.
      const { fileQueries } = await import('../store/file-stamps.ts');
      let scannedBefore = fileQueries(kb.db).any();
      if (!scannedBefore) await scanOpened(kb);
      try {
        // A tag or deck the database does not know may be in a file edited since: scan first.
        if (scannedBefore && unknownFilterProblem(request, kb.db) !== null) {
          await scanOpened(kb);
          scannedBefore = false;
        }
        checkFilter(request, kb.db);
        const [{ ReviewService }, { ReviewRun }, { renderReview }, { cardLabRunner }, { settingsKeptLine }] = await Promise.all([
          import('../app/review/review-service.ts'),
          import('../app/review/review-run.ts'),
          import('../ui/review/render-review.tsx'),
          import('../app/card-labs/card-lab-runner.ts'),
          import('../ui/review/settings-kept-line.ts'),
        ]);
        let configSeen = configStamp(kb.configPath);
        const run = new ReviewRun(new ReviewService(kb), kb.root, request, {
          startedAt,
          // kb.json as it is now, when the run reads today's queue again (a new study day, or
          // before it says done): a limit changed mid-session had no effect until a relaunch.
          // Read only when the file changed (the Done screen asks every second); a kb.json
          // broken meanwhile keeps the settings the run has, and the status line says so once.
          reloadService: () => {
            const stamp = configStamp(kb.configPath);
            if (stamp === configSeen) return null;
            configSeen = stamp;
            try {
              return new ReviewService({ ...kb, config: loadConfig(kb.configPath) });
            } catch (error) {
              return { kept: settingsKeptLine(error instanceof ConfigError ? error.problem : 'cannot be read') };
            }
          },
          editor: defaultEditor(),
          writable: kb.writable,
          labs: cardLabRunner(kb.db, kb.root),
          rescan: async () => (await scan()).errors,
          lateScan: scannedBefore
            ? async () => {
                const report = await scan();
                return { changed: scanChangedCards(report), problems: scanProblems(report) };
              }
            : undefined,
        });
        const summary = await renderReview(run, startedAt, screenNotice(kb));
        process.stdout.write(`${await fittedToTerminal(summary.line)}\n`);
        if (summary.interrupted) process.exitCode = ExitCode.interrupted;
      } finally {
        kb.db.close();
      }
    });
}

/** kb.json's size and modification time, to tell whether it changed; null when it cannot be read. */
function configStamp(path: string): string | null {
  try {
    const { size, mtimeMs } = statSync(path);
    return `${size}:${mtimeMs}`;
  } catch {
    return null;
  }
}
