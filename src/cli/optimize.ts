// kb optimize: fit FSRS's weights to this knowledge base's review history.
import type { Command } from 'commander';
import { helpText } from './help-layout.ts';
import { counted } from './plural.ts';

export function register(program: Command): void {
  program
    .command('optimize')
    .description("fit FSRS's 21 weights to your review history (fsrs-rs), score them against the weights in use on held-out reviews, and keep them in kb.json when they predict better")
    .option('--dry-run', 'fit and score, write nothing')
    .option('--json', 'print the scores and weights as JSON')
    .addHelpText(
      'after',
      helpText('\nScores: log loss (how well the predicted recall matches what you answered; lower is better) and\n' +
        'RMSE(bins) (predicted vs actual recall, binned; lower is better), on a time-series split: weights\n' +
        'fitted on your earlier reviews predict your later ones. Weights an earlier kb optimize fitted are\n' +
        'judged on the reviews made since alone (the others they were fitted to); with none, it says so and\n' +
        'changes nothing. kb.json changes only when the fitted weights\n' +
        "have the lower log loss (never a kb.json made read-only, chmod a-w); kb then replays every card's history under them at once (as Anki does after\n" +
        "Optimize). Needs reviews on a later day than the card's previous one: with too few, it says how\n" +
        'many more (exit 0; with --json, {"enoughHistory": false, ...}); where fsrs-rs finds them too few to\n' +
        'fit from and gives back the default weights, it says nothing was fitted ("keptDefaults": true). ' +
        'Ctrl-C while it fits writes nothing (exit 130). Weights set in kb.json by hand need no fittedAt or ' +
        "scores (they are judged on all your reviews); FSRS-5's 19 and FSRS-4.5's 17 are read as FSRS-6's. " +
        'A card whose history starts mid-life (its first review made in review, as imported) is left out, as ' +
        'fsrs-rs and Anki leave it out ("startedMidLife").'),
    )
    .action(async (options: { dryRun?: boolean; json?: boolean }, command: Command) => {
      const { openKnowledgeBase } = await import('./context.ts');
      const { fittedToTerminal } = await import('./terminal-output.ts');
      const { reviewHistory } = await import('../store/fit-history.ts');
      const { trainingSet } = await import('../srs/fit/training-items.ts');
      const { fitFsrs, MIN_TRAINING_ITEMS, NotEnoughHistoryError } = await import('../srs/fit/fit-weights.ts');
      const { fsrsParameters } = await import('../srs/review-settings.ts');
      const { isConfigWriteProtected, writeConfigKey } = await import('../kb/config-write.ts');
      const kb = openKnowledgeBase({ kb: command.optsWithGlobals().kb });
      let items;
      let reviews;
      // Cards whose history starts mid-life (first review made in review): left out of the fit.
      let startedMidLife = 0;
      try {
        const history = reviewHistory(kb.db);
        reviews = history.filter((row) => row.rating !== null).length;
        ({ items, startedMidLife } = trainingSet(history, kb.config.dayStartsAt));
      } finally {
        kb.db.close();
      }
      const inUse = fsrsParameters(kb.config).w;
      // Weights an earlier kb optimize fitted are judged on the reviews since alone (fit-weights.ts);
      // weights set by hand (no fittedAt) on all of them, as the defaults are.
      const fittedAt = kb.config.fsrsParameters?.fittedAt !== undefined ? Date.parse(kb.config.fsrsParameters.fittedAt) : Number.NaN;
      const bar = progressBar(process.stderr);
      // Ctrl-C (or a SIGTERM) while fsrs-rs fits: nothing is written before the fit ends, so kb
      // ends at once, but takes its bar away first and says so, as kb lab calibrate does (exit
      // 130): the signal's own end left "fitting FSRS [###…] 62%^C" with the next output on that line.
      const { ExitCode } = await import('./errors.ts');
      const interrupted = (signal: NodeJS.Signals) => {
        bar.clear();
        process.stderr.write(`kb: optimize interrupted (${signal === 'SIGINT' ? 'Ctrl-C' : signal}) while fitting: nothing written, kb.json unchanged\n`);
        process.exit(ExitCode.interrupted);
      };
      process.on('SIGINT', interrupted);
      process.on('SIGTERM', interrupted);
      const started = Date.now();
      let outcome;
      try {
        outcome = await fitFsrs(items, inUse, bar.update, Number.isNaN(fittedAt) ? {} : { fittedAt });
      } catch (error) {
        // Too little history yet is no mistake of the user's (as "nothing due" is not): exit 0,
        // and with --json an answer a script can read.
        if (!(error instanceof NotEnoughHistoryError)) throw error;
        if (options.json) {
          const answer = {
            enoughHistory: false,
            reviews,
            items: error.have,
            needed: MIN_TRAINING_ITEMS,
            ...(error.sinceFit !== undefined ? { sinceFit: error.sinceFit } : {}),
            ...(error.noneScorable ? { scorable: 0 } : {}),
            ...(startedMidLife > 0 ? { startedMidLife } : {}),
            written: false,
          };
          process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
        } else {
          process.stdout.write(`${await fittedToTerminal(`${error.message}; review more and run kb optimize again (${counted(reviews, 'review')} in all so far)${startedMidLife > 0 ? `\n${midLifeLine(startedMidLife)}` : ''}`)}\n`);
        }
        return;
      } finally {
        process.off('SIGINT', interrupted);
        process.off('SIGTERM', interrupted);
        bar.clear();
      }
      const seconds = (Date.now() - started) / 1000;
      const writeProtected = !kb.bundled && isConfigWriteProtected(kb.configPath);
      const write = outcome.better && !options.dryRun && !kb.bundled && !writeProtected;
      const { fitDateLabel, migrationNote } = await import('../app/stats/parameters-in-use.ts');
      const given = kb.config.fsrsParameters;
      const previousName = !given ? 'in use (default)' : given.fittedAt !== undefined ? `in use (fitted ${fitDateLabel(given.fittedAt)})` : 'in use (set in kb.json)';
      if (write) {
        const { ConfigError } = await import('../kb/config.ts');
        const { UserError } = await import('./errors.ts');
        try {
          writeConfigKey(kb.root, kb.configPath, 'fsrsParameters', {
            weights: outcome.weights,
            fittedAt: new Date().toISOString(),
            reviews,
            logLoss: outcome.fitted.logLoss,
            rmseBins: outcome.fitted.rmseBins,
            previousLogLoss: outcome.previous.logLoss,
            previousRmseBins: outcome.previous.rmseBins,
          });
        } catch (error) {
          // kb.json edited while the fit ran (a fit of a long history takes minutes), and left
          // broken or refused: said as kb.json's error, the weights not written.
          if (!(error instanceof ConfigError)) throw error;
          throw new UserError(`${error.message}; the fitted weights were not written: mend it, then run kb optimize again`);
        }
      }
      // Every card's history is replayed under the new weights now, rather than at the next
      // start, which would sit silent for as long (seconds on a long history) before its screen.
      let replaySeconds: number | undefined;
      if (write) {
        const replayStarted = Date.now();
        openKnowledgeBase({ kb: command.optsWithGlobals().kb }).db.close();
        replaySeconds = (Date.now() - replayStarted) / 1000;
      }
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({ enoughHistory: true, reviews, ...outcome, ...(startedMidLife > 0 ? { startedMidLife } : {}), ...(given?.migratedFrom ? { migratedFrom: given.migratedFrom } : {}), written: write, ...(writeProtected ? { writeProtected } : {}), seconds, ...(replaySeconds !== undefined ? { replaySeconds } : {}) }, null, 2)}\n`,
        );
        return;
      }
      const row = (name: string, scores: { logLoss: number; rmseBins: number }) => `  ${name.padEnd(28)} ${scores.logLoss.toFixed(4).padStart(8)} ${scores.rmseBins.toFixed(4).padStart(10)}`;
      const lines = [
        outcome.keptDefaults
          ? `fsrs-rs kept FSRS's default weights: ${reviews} reviews (${outcome.items} on a later day than the one before) are too few for it to fit from yet`
          : `fitted FSRS to ${reviews} reviews (${outcome.items} on a later day than the one before) in ${seconds.toFixed(1)} s`,
        Number.isNaN(fittedAt) ? 'scored on your later reviews (time-series split):' : `scored on your ${outcome.scored} reviews since the weights in use were fitted (time-series split):`,
        `  ${''.padEnd(28)} ${'log loss'.padStart(8)} ${'RMSE(bins)'.padStart(10)}`,
        row(previousName, outcome.previous),
        row(outcome.keptDefaults ? 'fitted (= the defaults)' : 'fitted', outcome.fitted),
      ];
      if (startedMidLife > 0) lines.splice(1, 0, midLifeLine(startedMidLife));
      if (given?.migratedFrom) lines.push(`in use: ${migrationNote(given.migratedFrom)}; a fit gives FSRS-6's own`);
      if (outcome.keptDefaults) lines.push('nothing fitted: kb.json unchanged; review more and run kb optimize again');
      else if (!outcome.better) lines.push('the fitted weights do not predict better: kb.json unchanged');
      else if (options.dryRun) lines.push('better; --dry-run: kb.json unchanged');
      else if (kb.bundled) lines.push('better, but the bundled knowledge base is read-only: kb init DIR makes one of your own');
      else if (writeProtected) lines.push(`better, but ${kb.configPath} is read-only (no write permission), which kb leaves as it is: not written; chmod u+w kb.json, then kb optimize again`);
      else lines.push(`better: written to ${kb.configPath} (fsrsParameters; kb sync commits it); every card's history replayed under them in ${(replaySeconds ?? 0).toFixed(1)} s`);
      process.stdout.write(`${await fittedToTerminal(lines.join('\n'))}\n`);
    });
}

/**
 * The cards left out of the fit because their history starts mid-life: an imported history whose
 * first review was made in review (or relearning), or a note whose frontmatter counted reviews
 * from before kb. As fsrs-rs and Anki do: taken as a new card's first rating, such a review
 * taught FSRS's first stabilities what a long-learned card does.
 */
function midLifeLine(cards: number): string {
  return `left out ${counted(cards, 'card')} whose history starts mid-life (first review made in review, not when new), as fsrs-rs and Anki do`;
}

/** "fitting FSRS [#####     ] 50%" on one rewritten line, on a terminal only. */
function progressBar(stream: NodeJS.WriteStream) {
  let shown = false;
  return {
    update(done: number, total: number): void {
      if (!stream.isTTY) return;
      const width = 30;
      const filled = Math.round((done / total) * width);
      stream.write(`\r\x1b[Kfitting FSRS [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${Math.round((done / total) * 100)}%`);
      shown = true;
    },
    clear(): void {
      if (shown) stream.write('\r\x1b[K');
      shown = false;
    },
  };
}
