// `kb lab show <name>`: a lab's exercise: what to run, what to look at, what to change.
import type { Command } from 'commander';
import { openKnowledgeBase } from '../context.ts';
import { loadLabOrExplain } from './lab-errors.ts';
import { labRoots } from '../../kb/location.ts';

export function registerShow(lab: Command): void {
  lab
    .command('show')
    .description('print a lab\'s exercise: what to run, what to look at, what to change, questions to answer')
    .argument('<name>', 'the lab')
    .option('--json', 'print the lab (settings, checks, exercise) as JSON')
    .action(async (name: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals() as { json?: boolean; kb?: string };
      const { loadLab } = await import('../../lab/lab-files.ts');
      const { settingsLine } = await import('../../lab/report-text.ts');
      const kb = openKnowledgeBase({ kb: options.kb });
      try {
        const lab = loadLabOrExplain(loadLab, labRoots(kb.root), name);
        if (options.json) {
          const { name: labName, file, title, summary, settings, sweep, chart, body } = lab;
          const expect = lab.expect.map((c) => ({ metric: c.text, op: c.op, value: c.value, say: c.say }));
          process.stdout.write(`${JSON.stringify({ name: labName, file, title, summary, settings, sweep, chart, expect, exercise: body }, null, 2)}\n`);
          return;
        }
        const checks = lab.expect.map((c) => `  - ${c.say}  (${c.text} ${c.op} ${c.value})`);
        process.stdout.write(
          [`${lab.title}  [${lab.file}]`, '', `Runs: ${settingsLine(lab.settings)}`, ...lab.presets.map((p) => `Preset ${p.name}: ${p.say} (--preset ${p.name})`), ...(lab.sweep ? [`Sweep: ${lab.sweep.key} = ${lab.sweep.labels.join(', ')}${lab.sweep.relativeTo === 'capacity' ? ' (times the capacity measured first)' : ''}`] : []), ...(lab.chart ? [`Chart: ${{ bars: 'bars of', line: 'lines of', time: 'over the time of each run,' }[lab.chart.kind]} ${lab.chart.y.join(', ')}`] : []), 'Expects:', ...checks, '', lab.body, ''].join('\n'),
        );
      } finally {
        kb.db.close();
      }
    });
}
