// kb undo: take back the latest rating (the TUI's u key without the TUI).
import type { Command } from 'commander';
import { UserError } from './errors.ts';
import { helpText } from './help-layout.ts';
import { fittedToTerminal } from './terminal-output.ts';

export function register(program: Command): void {
  program
    .command('undo')
    .description("take back the latest rating exactly (the card's schedule, its review-log row and the note's frontmatter), or the latest suspend, unsuspend, bury, unbury or forget, whichever came last")
    .option('--json', 'print the outcome as JSON: undone, then the card as kb cards --json gives it (id, path, state, due, stability, difficulty, reps, lapses, lastReview, suspended, buried, leech) as the undo left it, with action, rating, event and writeback')
    .addHelpText('after', helpText(
      '\nRun it again to take back the rating before. Refused when the card changed after that rating.\n' +
        'With nothing left to undo it says so and exits 0, as kb due with nothing due (--json: "undone": false).\n' +
        "Only this device's ratings and actions: another device's (merged by kb sync or git) and history brought in with kb import --revlog stay.",
    ))
    .action(async (options: { json?: boolean }, command: Command) => {
      const { openKnowledgeBase, scanBeforeCardCommand } = await import('./context.ts');
      const { ReviewService, UndoError } = await import('../app/review/review-service.ts');
      const { describeState, describeWriteback, gradeLabel, gradeName } = await import('../ui/text/rating-report.ts');
      const { refusedWritebackNote } = await import('../kb/writeback.ts');
      const { STATE_NAMES } = await import('../model/fsrs-state.ts');
      const kb = openKnowledgeBase({ kb: command.optsWithGlobals().kb });
      try {
        // After a changed idKey, the note taken back is found under the new key only once scanned.
        await scanBeforeCardCommand(kb, [], () => true);
        let outcome;
        try {
          outcome = new ReviewService(kb).undo();
        } catch (error) {
          if (error instanceof UndoError) throw new UserError(error.message);
          throw error;
        }
        // Nothing to take back is no error, as "nothing due" is not (exit 0): a script that undoes
        // until nothing is left stops on this, not on a failure it cannot tell from a fault.
        if (outcome === null) {
          if (options.json) process.stdout.write(`${JSON.stringify({ undone: false, message: NOTHING_TO_UNDO }, null, 2)}\n`);
          else process.stdout.write(`${NOTHING_TO_UNDO}\n`);
          return;
        }
        if (options.json) {
          // The card as kb cards --json gives it (README: kb undo --json), as the undo left it.
          const { scheduleJson, flagsJson, writebackJson } = await import('./card-json.ts');
          const { cardQueries } = await import('../store/card-rows.ts');
          const now = Date.now();
          const json = {
            undone: true,
            id: outcome.cardId,
            path: cardQueries(kb.db).find(outcome.cardId)?.path ?? null,
            action: outcome.action,
            rating: outcome.grade === null ? null : gradeName(outcome.grade),
            event: outcome.uuid,
            ...scheduleJson(outcome.restoredRow, now),
            ...flagsJson(outcome.restoredRow, now),
            writeback: writebackJson(outcome.file),
          };
          process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
          return;
        }
        // "undid Again on ID", as kb review's u says it ("undid again" read as "undid once more").
        const what = outcome.grade === null ? outcome.action : gradeLabel(outcome.grade);
        // Undoing an unbury buries the card again: "back to learning, due now" read as if it were due.
        const flag = outcome.grade === null ? FLAG_AFTER_UNDO[outcome.action as keyof typeof FLAG_AFTER_UNDO] : undefined;
        // Buried or suspended again, the card is out of the queue: its state alone ("suspended again
        // (new, due now)" said it was due).
        const outOfQueue = outcome.action === 'unbury' || outcome.action === 'unsuspend';
        const state = outOfQueue ? STATE_NAMES[outcome.restored.state] : describeState(outcome.restored, Date.now());
        const lines = [flag ? `undid ${what} on ${outcome.cardId}: ${flag} (${state})` : `undid ${what} on ${outcome.cardId}: back to ${state}`];
        // A note that could not be written is a warning on stderr, as kb rate gives it (it was a
        // plain stdout line with no word of what comes next: found by a fault probe).
        if (outcome.file?.status === 'refused') {
          process.stderr.write(`kb: warning: frontmatter not written: ${outcome.file.reason}; ${refusedWritebackNote(outcome.file, 'undo')}\n`);
        } else {
          const file = describeWriteback(outcome.file);
          if (file) lines.push(file);
        }
        process.stdout.write(await fittedToTerminal(`${lines.join('\n')}\n`));
      } finally {
        kb.db.close();
      }
    });
}

/**
 * Only this device's own events are taken back (README: Review on several machines): an
 * imported rating or another device's stands all the same, so "none stands" would be untrue.
 */
const NOTHING_TO_UNDO = "Nothing to undo on this device (another device's and imported history stay).";

/** What an undone card action leaves the card as, where that is more than its schedule. */
const FLAG_AFTER_UNDO = {
  unbury: 'buried again until tomorrow',
  unsuspend: 'suspended again',
  bury: 'unburied, back in today\'s queue',
  suspend: 'unsuspended',
} as const;
