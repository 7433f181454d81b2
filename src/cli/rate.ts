// kb rate: answer one card from a script (the TUI's 1-4 keys without the TUI).
import type { Command } from 'commander';
import { UserError } from './errors.ts';
import { helpText } from './help-layout.ts';
import { fittedToTerminal } from './terminal-output.ts';

export function register(program: Command): void {
  program
    .command('rate')
    .description('rate one card again|hard|good|easy (or 1-4): updates its schedule, logs the review, writes the note back')
    .argument('<card-id>', 'the card id (kb due --json lists them)')
    .argument('<rating>', 'again, hard, good or easy (1-4)')
    .option('--json', 'print the outcome as JSON: the card as kb cards --json gives it (id, path, state, due, stability, difficulty, reps, lapses, lastReview, suspended, buried, leech), with rating, reviewedAt, before (its schedule before), leechAction, event and writeback')
    .addHelpText(
      'after',
      helpText("\nOne SQLite transaction per rating, then the note's frontmatter is written back. kb undo takes it back.\n" +
        'When the write-back is refused (the file changed, a YAML anchor on a review field, a full or\n' +
        'read-only disk), the rating is still stored: kb prints a warning and exits 0; kb doctor --fix\n' +
        'writes the fields later (once the file is fixed, where the file itself was the reason). While git\n' +
        'merges or rebases the knowledge base, the note waits: the first kb command after writes it.\n' +
        'A note moved since the last scan (git mv, a pull) waits too: the next kb command that scans\n' +
        '(kb due, kb review, kb scan, kb sync) writes the fields where it went.\n' +
        "kb rate scans first only for an id the database lacks, or after kb.json's idKey or notesFolders changed.\n" +
        "A clock behind the card's last review (set back, or another device's ahead) gets a warning:\n" +
        'the rating is stored at that last review, so the card\'s reviews stay in time order.'),
    )
    .action(async (cardId: string, rating: string, options: { json?: boolean }, command: Command) => {
      const { parseGrade } = await import('../model/fsrs-state.ts');
      const grade = parseGrade(rating);
      if (grade === null) throw new UserError(`rating: "${rating}" is not one of again, hard, good, easy (or 1-4)`);
      const { openKnowledgeBase, scanBeforeCardCommand } = await import('./context.ts');
      const { ReviewService, UnknownCardError } = await import('../app/review/review-service.ts');
      const { describeState, describeWriteback, gradeName } = await import('../ui/text/rating-report.ts');
      const { refusedWritebackNote } = await import('../kb/writeback.ts');
      const { leechMessage } = await import('../srs/leech.ts');
      const { clockBehindMessage } = await import('../srs/replay.ts');
      const kb = openKnowledgeBase({ kb: command.optsWithGlobals().kb });
      try {
        const service = new ReviewService(kb);
        await scanBeforeCardCommand(kb, [cardId], (id) => service.card(id) !== null);
        // An orphan's file is gone (kb review no longer shows it): a rating would schedule a card no one can see.
        const card = service.card(cardId);
        if (card?.orphan) throw new UserError(`card ${cardId}: its file ${card.path} is gone (kb scan keeps its history in case it comes back); not rated`);
        const now = Date.now();
        let outcome;
        try {
          outcome = service.rate(cardId, grade, now);
        } catch (error) {
          if (error instanceof UnknownCardError) throw new UserError(error.message);
          throw error;
        }
        // The rating is stored even when its write-back was refused: exit 0 with a warning, so a
        // script that retries on failure does not rate the card twice.
        const clock = clockBehindMessage(outcome.at, now);
        if (clock) process.stderr.write(`kb: warning: ${clock}\n`);
        if (outcome.writeback?.status === 'refused') {
          process.stderr.write(`kb: warning: frontmatter not written: ${outcome.writeback.reason}; ${refusedWritebackNote(outcome.writeback, 'rating')}\n`);
        }
        if (options.json) {
          // The card as kb cards --json gives it (README: kb rate --json), after the rating.
          const { scheduleJson, flagsJson, writebackJson } = await import('./card-json.ts');
          const json = {
            id: cardId,
            path: card?.path ?? null,
            rating: gradeName(grade),
            reviewedAt: new Date(outcome.at).toISOString(),
            ...scheduleJson(outcome.afterRow, now),
            ...flagsJson(outcome.afterRow, now),
            before: scheduleJson(outcome.beforeRow, now),
            leechAction: outcome.leech,
            event: outcome.uuid,
            writeback: writebackJson(outcome.writeback),
          };
          process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
          return;
        }
        const lines = [`${cardId}: ${gradeName(grade)} -> ${describeState(outcome.after, now)}`];
        // Rated while out of review, it stays out: its due time comes only once it is back.
        const { suspended, buried_until: buriedUntil } = outcome.beforeRow;
        if (suspended === 1) lines.push(`still suspended: kb review skips it until kb unsuspend ${cardId}`);
        else if (buriedUntil !== null && buriedUntil > now) lines.push(`still buried until tomorrow (kb unbury ${cardId} brings it back today)`);
        const file = outcome.writeback?.status === 'refused' ? null : describeWriteback(outcome.writeback);
        if (file) lines.push(file);
        const leech = leechMessage(outcome.leech, outcome.after.lapses);
        if (leech) lines.push(leech);
        process.stdout.write(await fittedToTerminal(`${lines.join('\n')}\n`));
      } finally {
        kb.db.close();
      }
    });
}
