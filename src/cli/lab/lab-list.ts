// `kb lab list` (and `kb lab` with no name): the labs of the knowledge base with the verdict
// of each one's latest run.
import type { Command } from 'commander';
import type { KbDatabase } from '../../store/db.ts';
import { openKnowledgeBase } from '../context.ts';
import { kbOption } from './lab-errors.ts';
import { labRoots } from '../../kb/location.ts';
import { terminalColumns } from '../terminal-output.ts';

export function registerList(lab: Command): void {
  lab
    .command('list')
    .description('list the labs of the knowledge base, with the verdict of each one\'s latest run')
    .option('--json', 'print as JSON')
    .action(async (_options: unknown, command: Command) => {
      await printList(kbOption(command), Boolean(command.optsWithGlobals().json));
    });
}

export async function printList(kbDir: string | undefined, json: boolean): Promise<void> {
  const kb = openKnowledgeBase({ kb: kbDir, readOnly: true });
  try {
    await printListFrom(kb.root, kb.db, json);
  } finally {
    kb.db.close();
  }
}

async function printListFrom(root: string, db: KbDatabase, json: boolean): Promise<void> {
  const { listLabs } = await import('../../lab/lab-files.ts');
  const { latestLabRuns } = await import('../../store/lab-runs.ts');
  const { storedVerdict, storedVerdictJson } = await import('../../lab/history.ts');
  const labs = listLabs(labRoots(root));
  const latest = latestLabRuns(db);
  if (json) {
    const rows = labs.map((entry) => {
      const last = latest.get(entry.name) ?? null;
      const lastRun = last ? { id: last.id, status: last.status, startedAt: last.startedAt, verdict: storedVerdictJson(last.result) } : null;
      return entry.lab
        ? { name: entry.name, file: entry.lab.file, title: entry.lab.title, summary: entry.lab.summary, sweep: entry.lab.sweep?.key ?? null, expect: entry.lab.expect.map((c) => c.say), lastRun, error: null }
        : { name: entry.name, file: `lab/${entry.name}.md`, title: null, summary: null, sweep: null, expect: [], lastRun, error: entry.error };
    });
    process.stdout.write(`${JSON.stringify({ root, labs: rows }, null, 2)}\n`);
    return;
  }
  if (labs.length === 0) {
    process.stdout.write(`No labs in ${root}/lab.\n`);
    return;
  }
  const { nameListing } = await import('../../ui/text/name-listing.ts');
  const entries = labs.map((entry) => {
    const last = latest.get(entry.name);
    // Where it ran: a sim run's verdict is a prediction's, an endpoint's a server's.
    const lastText = last ? `  [last run #${last.id} on ${last.backend}: ${storedVerdict(last.result) ?? last.status}]` : '';
    return { name: entry.name, lines: entry.lab ? [`${entry.lab.title}${lastText}`, entry.lab.summary] : [`(broken) ${entry.error.split('\n')[0]}`] };
  });
  const hints = ['Read one: kb lab show <name>', 'Run it: kb lab <name> [--set key=value ...]', 'Past runs: kb lab history <name>'];
  process.stdout.write(nameListing(entries, hints, terminalColumns()));
}
