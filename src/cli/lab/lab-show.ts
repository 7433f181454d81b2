// `kb lab show <name>`: a lab's exercise: what to run, what to look at, what to change.
import type { Command } from 'commander';
import { openKnowledgeBase } from '../context.ts';
import { loadLabOrExplain } from './lab-errors.ts';
import { labRoots } from '../../kb/location.ts';
import { terminalColumns } from '../terminal-output.ts';

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
      const kb = openKnowledgeBase({ kb: options.kb, readOnly: true });
      try {
        const lab = loadLabOrExplain(loadLab, labRoots(kb.root), name);
        if (options.json) {
          const { name: labName, file, title, summary, settings, sweep, chart, body } = lab;
          const expect = lab.expect.map((c) => ({ metric: c.text, op: c.op, value: c.value, say: c.say }));
          process.stdout.write(`${JSON.stringify({ name: labName, file, title, summary, settings, sweep, chart, expect, exercise: body }, null, 2)}\n`);
          return;
        }
        const { listingWidth, wrapHanging } = await import('../../ui/text/line-wrap.ts');
        const width = listingWidth(terminalColumns());
        // kb's own lines wrap to the terminal; the exercise (the lab file's Markdown) is printed as written.
        const head = [
          // settingsLine's lines after its first are indented under it: each keeps its indent, under "Runs: ".
          ...settingsLine(lab.settings, lab.sweep?.key).split('\n').flatMap((line, i) => wrapHanging(i === 0 ? 'Runs: ' : `      ${/^ */.exec(line)![0]}`, line.trimStart(), width)),
          ...lab.presets.flatMap((p) => wrapHanging(`Preset ${p.name}: `, `${p.say} (--preset ${p.name})`, width)),
          ...(lab.sweep ? wrapHanging('Sweep: ', `${lab.sweep.key} = ${lab.sweep.labels.join(', ')}${lab.sweep.relativeTo === 'capacity' ? ' (times the capacity measured first)' : ''}`, width) : []),
          ...(lab.chart ? wrapHanging('Chart: ', `${{ bars: 'bars of', line: 'lines of', time: 'over the time of each run,' }[lab.chart.kind]} ${lab.chart.y.join(', ')}`, width) : []),
          'Expects:',
          ...lab.expect.flatMap((c) => wrapHanging('  - ', `${c.say}  (${c.text} ${c.op} ${c.value})`, width)),
        ];
        // The lab's file is kept whole, however wide, as printed output keeps every path (fittedToTerminal).
        process.stdout.write([...wrapHanging('', `${lab.title}  [${lab.file}]`, width, { wholePaths: true }), '', ...head, '', lab.body, ''].join('\n'));
      } finally {
        kb.db.close();
      }
    });
}
