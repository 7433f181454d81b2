// `kb lab history [name]`: a lab's stored runs, newest first; without a name, every lab's.
import type { Command } from 'commander';
import { UserError } from '../errors.ts';
import { countOption, numberOption } from '../number-option.ts';
import { openKnowledgeBase } from '../context.ts';
import { asUserError, userErrorNames } from './lab-errors.ts';
import { labRoots } from '../../kb/location.ts';
import { fittedToTerminal, terminalColumns } from '../terminal-output.ts';

/** The width fittedToTerminal fits to: a run's settings go on a line of their own rather than be wrapped out of their columns. */
const listingWidth = () => (terminalColumns() ?? 80) - 1;

export function registerHistory(lab: Command): void {
  lab
    .command('history')
    .description(
      "list the stored runs of a lab, newest first (a sweep's knee and SLO at the swept value they fall at), and what changed between the last two; without a name, the latest runs of every lab",
    )
    .argument('[name]', 'the lab (left out: every lab)')
    .addOption(numberOption('--limit <n>', 'at most this many runs', 20))
    .option('--json', 'print as JSON: lab and runs, each with its settings, changed, sweep, endpoint, verdict and result (named as in kb lab <name> --json; every sweep figure, knee.index and slo.* too; the shape: README, Labs and the engine)')
    .action(async (name: string | undefined, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals() as { limit: string; json?: boolean; kb?: string };
      const limit = countOption('--limit', options.limit, 'runs');
      if (name === undefined) {
        await printAllHistory(options.kb, limit, Boolean(options.json));
        return;
      }
      const { historyText, historyJson } = await import('../../lab/history.ts');
      const { loadLab } = await import('../../lab/lab-files.ts');
      const { labNamePattern } = await import('../../lab/lab-names.ts');
      const { labRunsOf } = await import('../../store/lab-runs.ts');
      const kb = openKnowledgeBase({ kb: options.kb, readOnly: true });
      try {
        let title: string | null = null;
        try {
          title = loadLab(labRoots(kb.root), name).title;
        } catch (error) {
          // A lab whose file is gone or broken still has its history.
          if (!(error instanceof Error && userErrorNames.has(error.name))) throw error;
          if (!labNamePattern.test(name)) asUserError(error);
        }
        const runs = labRunsOf(kb.db, name, limit);
        if (runs.length === 0 && title === null) throw new UserError(`no lab "${name}" and no stored runs of it; see kb lab list`);
        if (options.json) process.stdout.write(`${JSON.stringify(historyJson(name, runs), null, 2)}\n`);
        else process.stdout.write(await fittedToTerminal(historyText(name, title, runs, listingWidth())));
      } finally {
        kb.db.close();
      }
    });
}

async function printAllHistory(kbDir: string | undefined, limit: number, json: boolean): Promise<void> {
  const { allHistoryText, historyJson } = await import('../../lab/history.ts');
  const { recentLabRuns } = await import('../../store/lab-runs.ts');
  const kb = openKnowledgeBase({ kb: kbDir, readOnly: true });
  try {
    const runs = recentLabRuns(kb.db, limit);
    process.stdout.write(json ? `${JSON.stringify(historyJson(null, runs), null, 2)}\n` : await fittedToTerminal(allHistoryText(runs, listingWidth())));
  } finally {
    kb.db.close();
  }
}
