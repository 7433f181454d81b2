// kb stats: the due forecast, review history, true retention, and the state of the cards.
import type { Command } from 'commander';
import { helpText } from './help-layout.ts';
import { fittedToTerminal, terminalColumns } from './terminal-output.ts';

export function register(program: Command): void {
  program
    .command('stats')
    .description('charts of the review state: due forecast (30 days), reviews per day (12 weeks), true retention per week, cards by state, stability and difficulty, quiz accuracy by tag, and the FSRS parameters in use')
    .option('--json', 'print the numbers as JSON')
    .addHelpText('after', helpText('\nOn a terminal the charts are coloured; NO_COLOR (set, not empty) takes the colours out, bold kept. Piped, they have none.'))
    .action(async (options: { json?: boolean }, command: Command) => {
      const { openScannedKnowledgeBase } = await import('./context.ts');
      const { collectStats } = await import('../app/stats/stats-report.ts');
      const kb = await openScannedKnowledgeBase({ kb: command.optsWithGlobals().kb, readOnly: true });
      try {
        const report = collectStats(kb.db, kb.config, Date.now());
        const { parametersInUse, parametersLine } = await import('../app/stats/parameters-in-use.ts');
        const parameters = parametersInUse(kb.config);
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ ...report, parameters }, null, 2)}\n`);
          return;
        }
        const { statsText } = await import('../ui/charts/StatsView.tsx');
        process.stdout.write(`${statsText(report, Math.min(100, terminalColumns() ?? 80))}\n${await fittedToTerminal(parametersLine(parameters))}\n`);
      } finally {
        kb.db.close();
      }
    });
}
