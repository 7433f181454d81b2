// `kb lab compare <run> <other>`: two stored runs side by side.
import type { Command } from 'commander';
import { UserError } from '../errors.ts';
import { plainNumber } from '../number-option.ts';
import { openKnowledgeBase } from '../context.ts';
import { fittedToTerminal } from '../terminal-output.ts';

export function registerCompare(lab: Command): void {
  lab
    .command('compare')
    .description('show two stored runs side by side: settings, metrics at each point, expectations')
    .argument('<run>', 'a run id (see kb lab history)')
    .argument('<other>', 'another run id')
    .option('--json', 'print both runs as JSON: runs (each with its settings, changed, sweep, endpoint, verdict and result, named as in kb lab <name> --json) and settingsChanged')
    .action(async (first: string, second: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals() as { json?: boolean; kb?: string };
      const ids = [first, second].map((text) => {
        // Number() took 0x10 for run 16 and 1e1 for run 10: decimal digits only.
        const id = plainNumber(text.replace(/^#/, ''));
        if (id === null || !Number.isInteger(id) || id < 1) throw new UserError(`"${text}" is not a run id (a whole number, see kb lab history)`);
        return id;
      });
      // `kb lab compare 2 2` showed "+0.0%" everywhere without a word: surely a typo.
      if (ids[0] === ids[1]) throw new UserError(`#${ids[0]} twice: give two different runs to compare (see kb lab history)`);
      const { labRun } = await import('../../store/lab-runs.ts');
      const { compareText, compareJson } = await import('../../lab/compare.ts');
      const kb = openKnowledgeBase({ kb: options.kb, readOnly: true });
      try {
        const [a, b] = ids.map((id) => {
          const run = labRun(kb.db, id);
          if (!run) throw new UserError(`no stored lab run #${id}; see kb lab history`);
          return run;
        });
        if (options.json) process.stdout.write(`${JSON.stringify(compareJson(a, b), null, 2)}\n`);
        else process.stdout.write(await fittedToTerminal(compareText(a, b)));
      } finally {
        kb.db.close();
      }
    });
}
