// kb export --revlog FILE.csv and kb import --revlog FILE.csv [--map FILE.ids.csv]: review
// history in the revlog CSV of the FSRS tools (fsrs4anki, FSRS-Optimizer, the binding).
import { counted } from './plural.ts';
import type { Command } from 'commander';
import { UserError } from './errors.ts';
import { helpText } from './help-layout.ts';
import { fittedToTerminal } from './terminal-output.ts';

const FORMAT_HELP =
  '\nThe revlog CSV: card_id,review_time,review_rating,review_state,review_duration (integer card ids,\n' +
  'times in ms since the epoch, ratings 1-4, the state before the review 0-3, durations in ms), as\n' +
  "fsrs4anki, FSRS-Optimizer and @open-spaced-repetition/binding's convertCsvToFsrsItems read it.";

export function register(program: Command): void {
  program
    .command('export')
    .description('export the review history: --revlog FILE.csv writes every standing rating in the FSRS revlog CSV, and FILE.ids.csv maps its card numbers to kb ids')
    .option('--revlog <file>', 'the revlog CSV to write')
    .option('--json', 'print what was written as JSON')
    .addHelpText('after', helpText(`${FORMAT_HELP}\nAn existing FILE.csv or FILE.ids.csv is replaced only when kb export wrote it (its header line);\nany other file there is refused, and nothing is written.`))
    .action(async (options: { revlog?: string; json?: boolean }, command: Command) => {
      if (!options.revlog) throw new UserError('export: say what to export: --revlog FILE.csv');
      // "-" is stdout by convention, but an export is two files (the CSV and its ids): it wrote
      // files named "-" and "-.ids.csv" in the working folder (found as a power user).
      if (options.revlog === '-') throw new UserError('export: --revlog -: kb export writes two files, FILE.csv and FILE.ids.csv (its card ids), so it needs a file name, not stdout: --revlog FILE.csv');
      const { openKnowledgeBase } = await import('./context.ts');
      const { exportRevlog, RevlogExportError } = await import('../app/revlog/export-revlog.ts');
      const kb = openKnowledgeBase({ kb: command.optsWithGlobals().kb, readOnly: true });
      try {
        let written;
        try {
          written = exportRevlog(kb.db, options.revlog);
        } catch (error) {
          if (error instanceof RevlogExportError) throw new UserError(error.message);
          throw error;
        }
        if (options.json) process.stdout.write(`${JSON.stringify(written, null, 2)}\n`);
        else process.stdout.write(await fittedToTerminal(`wrote ${counted(written.reviews, 'review')} of ${counted(written.cards, 'card')} to ${written.file}; card numbers to kb ids in ${written.mapFile}\n`));
      } finally {
        kb.db.close();
      }
    });

  program
    .command('import')
    .description('import review history: --revlog FILE.csv adds its reviews to this device\'s review log (once: importing again adds nothing) and replays the cards')
    .option('--revlog <file>', 'the revlog CSV to read')
    .option('--map <file>', 'a card_id,kb_id CSV naming the kb card of each card_id (default: FILE.ids.csv beside the CSV, as kb export writes it, when there is one); without one a card_id must be a kb id as a number; either way a card_id that is the id of a card here, as it is, whatever its shape, names that card')
    .option('--json', 'print the outcome as JSON')
    .addHelpText(
      'after',
      helpText(
        `${FORMAT_HELP}\nkb counts rows: imported, already in the log, and refused (no such card, a bad value), by reason. ` +
          'A row from state 0 after earlier reviews of its card adds a reset (forget) before it, counted apart. A review already ' +
          "in the log (same card, time and answer) is not added (two such rows in the file are two reviews: a file in whole " +
          "seconds, say); one another clone's log brings in later (its export imported here " +
          'before the two synced) is counted once all the same. The reviews are stored before any note is touched; the ' +
          "replayed notes' review fields are then written as a batch (on disk when kb reports): killed meanwhile, kb doctor " +
          '--fix writes the fields and removes stray temp files.',
      ),
    )
    .action(async (options: { revlog?: string; map?: string; json?: boolean }, command: Command) => {
      if (!options.revlog) throw new UserError('import: say what to import: --revlog FILE.csv');
      // Not stdin: the ids file is found beside the CSV, and a file named "-" was read instead.
      if (options.revlog === '-') throw new UserError('import: --revlog -: kb import reads a file, not stdin (its card ids come from FILE.ids.csv beside it): --revlog FILE.csv');
      const { openScannedKnowledgeBase } = await import('./context.ts');
      const { importRevlog, RevlogFormatError, RevlogInputError } = await import('../app/revlog/import-revlog.ts');
      const { mapFileFor } = await import('../app/revlog/export-revlog.ts');
      const { existsSync } = await import('node:fs');
      const { openReviewLog } = await import('../app/review-log/open-review-log.ts');
      const kb = await openScannedKnowledgeBase({ kb: command.optsWithGlobals().kb });
      try {
        const log = openReviewLog(kb);
        if (log === null) throw new UserError('import: this knowledge base keeps no review log');
        // The mapping kb export wrote beside the file is used without being named: a round trip
        // through kb's own export needs no --map (ids a user wrote in a note have no number form).
        const besideIt = mapFileFor(options.revlog);
        const mapFile = options.map ?? (existsSync(besideIt) ? besideIt : undefined);
        let outcome;
        try {
          outcome = importRevlog(kb, log, options.revlog, mapFile);
        } catch (error) {
          if (error instanceof RevlogFormatError) throw new UserError(`${options.revlog}: ${error.message}`);
          if (error instanceof RevlogInputError) throw new UserError(error.message);
          // A file that cannot be read (missing, not readable) is said as kb says any file fault.
          throw error;
        }
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ ...outcome, map: mapFile ?? null }, null, 2)}\n`);
          return;
        }
        // Rows only, so they add up: imported + already in the log + refused = the file's rows.
        const lines = [`imported ${outcome.added} of ${counted(outcome.rows, 'row')}; ${outcome.duplicates} already in the log`];
        if (outcome.resets > 0) lines.push(`inferred ${counted(outcome.resets, 'reset')} (forget): a row from state 0 after earlier reviews of its card`);
        if (mapFile !== undefined && options.map === undefined) lines.push(`card ids read through ${mapFile} (kb export's mapping beside it)`);
        for (const refusal of outcome.refused) lines.push(`refused ${counted(refusal.count, 'row')}: ${refusal.reason} (line ${refusal.lines.join(', ')}${refusal.count > refusal.lines.length ? ', ...' : ''})`);
        process.stdout.write(await fittedToTerminal(`${lines.join('\n')}\n`));
      } finally {
        kb.db.close();
      }
    });
}
