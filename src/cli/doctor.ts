// kb doctor: is the database sound, and do the files and the database agree?
import { counted } from './plural.ts';
import type { Command } from 'commander';
import { UserError } from './errors.ts';
import { helpText } from './help-layout.ts';
import { fittedToTerminal } from './terminal-output.ts';

export function register(program: Command): void {
  program
    .command('doctor')
    .description('check the database and the knowledge base: integrity, duplicate ids, orphans, lab links, frontmatter vs database')
    .option('--json', 'print the findings as JSON')
    .option('--verbose', 'list every warning (without it, a kind of warning met many times shows its first three and a count)')
    .option('--fix', "rewrite notes' review fields (last_reviewed, next_review, review_count, mastery_level) from the database and remove kb's stale temp files; personal knowledge bases only")
    .addHelpText(
      'after',
      helpText("\nStale temp files: kb's own .<file>.<pid>.<hex>.kb-tmp files left beside a note when kb was killed\n" +
        'mid-write, whose process is gone; --fix removes them (never a file of a kb still running).\n' +
        "\nExit code 1 when the database is damaged, two cards share an id, a card's schedule does not replay from its log of ratings and actions, " +
        'or a file has an error that makes kb scan skip it (as kb scan exits 1 for it).'),
    )
    .action(async (options: { json?: boolean; fix?: boolean; verbose?: boolean }, command: Command) => {
      const { openKnowledgeBase } = await import('./context.ts');
      const { diagnoseKnowledgeBase } = await import('../app/doctor/doctor-checks.ts');
      const kb = openKnowledgeBase({ kb: command.optsWithGlobals().kb, readOnly: !options.fix });
      try {
        if (options.fix && !kb.writable) {
          throw new UserError('--fix writes into the notes, and the bundled knowledge base is read-only; make your own with: kb init DIR');
        }
        const { progressLine } = await import('./scan.ts');
        const progress = progressLine(process.stderr, 'checking');
        const report = await diagnoseKnowledgeBase(kb, { fix: options.fix, onProgress: progress.update });
        progress.clear();
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ ...report, bundled: kb.bundled, dbPath: kb.dbPath }, null, 2)}\n`);
        } else {
          const { unknownLabWarnings } = await import('../kb/lab-links.ts');
          // Wrapped to the terminal (80 columns piped) under each line's label, as other reports are (its lines ran to 400 columns).
          process.stdout.write(await fittedToTerminal(`${formatDoctorReport(report, kb, unknownLabWarnings, options.verbose === true)}\n`));
        }
        if (report.errors > 0) process.exitCode = 1;
      } finally {
        kb.db.close();
      }
    });
}

type Report = Awaited<ReturnType<typeof import('../app/doctor/doctor-checks.ts').diagnoseKnowledgeBase>>;
type UnknownLabWarnings = typeof import('../kb/lab-links.ts').unknownLabWarnings;

function formatDoctorReport(report: Report, kb: { bundled: boolean; dbPath: string }, unknownLabWarnings: UnknownLabWarnings, verbose: boolean): string {
  const { bundled } = kb;
  const lines: string[] = [`${report.root}${bundled ? ' (bundled, read-only)' : ''}`];
  // A kill -9 in a big scan can leave a thousand temp files: each kind of warning shows its
  // first three and a count, as kb scan does (--verbose, or --json, lists them all).
  const some = (kind: string, each: string[]) => lines.push(...(verbose ? each : firstThree(kind, each)));
  lines.push(report.integrity.ok ? 'database: ok' : `database: DAMAGED: ${report.integrity.messages.join('; ')}; ${report.integrity.foreignKeyViolations} foreign key violations`);
  for (const duplicate of report.duplicates) {
    lines.push(`error: duplicate card id ${duplicate.id}: ${duplicate.places.map((p) => `${p.file}:${p.line}`).join(', ')}`);
  }
  // kb scan names the files it writes ids into; a file it cannot write is named here, where
  // the user learns that it needs them (a read-only file, one reached through a symbolic link).
  const named = (files: string[]) => (verbose || files.length <= 4 ? files : [...files.slice(0, 3), `${files.length - 3} more (kb doctor --verbose lists them all)`]).join(', ');
  for (const group of ['scan', 'read-only', 'linked'] as const) {
    const missing = report.missingIds.filter((entry) => (entry.linked ? 'linked' : entry.readOnly ? 'read-only' : 'scan') === group);
    if (missing.length === 0) continue;
    const one = missing.length === 1;
    const files = [...new Set(missing.map((entry) => entry.file))];
    const cards = `${counted(missing.length, 'card')} in ${counted(files.length, group === 'scan' ? 'file' : `${group} file`)} ${one ? 'has' : 'have'}`;
    const their = one ? 'its' : 'their';
    lines.push(
      bundled
        ? `warning: ${cards} no id in ${their} file; kb uses ids derived from file and question (maintainers: kb --kb <repo> scan --write-ids)`
        : group === 'read-only'
          ? // kb scan cannot write into them: "run kb scan" sent the user to a command that left them so.
            `warning: ${cards} no id in ${their} file (${named(files)}); kb keeps ids derived from file and question, and kb scan writes them once a file is writable`
          : group === 'linked'
            ? `warning: ${cards} no id in ${their} file (${named(files)}); kb keeps ids derived from file and question, as it never writes through a symbolic link`
            : `warning: ${cards} no id yet; run kb scan`,
    );
  }
  for (const entry of report.replay) lines.push(`error: card ${entry.id}: ${entry.problem}`);
  if (report.replay.length > 0) {
    // What the user can do: the database is a cache of the review logs, and a rebuilt one replays each card's chain whole.
    const cards = report.replay.length === 1 ? "this card's schedule" : 'these schedules';
    lines.push(`the review logs hold every rating and change: to rebuild ${cards} from them, move the database aside (mv ${kb.dbPath} ${kb.dbPath}.old) and run any kb command (lab runs and quiz answers live only in the database)`);
  }
  some('unknown lab links', unknownLabWarnings(report.unknownLabs, new Set()).map((warning) => `warning: ${warning.file}:${warning.line}: ${warning.message}`));
  some('notes whose frontmatter differs', report.frontmatter.map((entry) => {
    const fields = entry.mismatches.map((m) => `${m.field} file ${m.notRead === undefined ? JSON.stringify(m.file) : `not read (${m.notRead})`} vs database ${JSON.stringify(m.database)}`).join(', ');
    return `${entry.fixed ? 'fixed' : 'warning'}: ${entry.file}: ${fields}${entry.fixError ? ` (not fixed: ${entry.fixError})` : ''}`;
  }));
  // As kb scan says them: a file skipped for an error is an error here too.
  some('unreadable files', report.unreadable.map((diagnostic) => `${diagnostic.severity}: ${diagnostic.line ? `${diagnostic.file}:${diagnostic.line}` : diagnostic.file}: ${diagnostic.message}`));
  some('stale temp files', report.staleTempFiles.map(staleTempLine));
  if (report.orphans.length > 0) lines.push(`orphans: ${counted(report.orphans.length, 'card')} whose source is gone (their history is kept)`);
  if (!bundled) {
    // Before --fix, the way to fix; after it, what --fix could not do waits on the file itself.
    if (report.frontmatter.some((entry) => !entry.fixed && !entry.fixError)) lines.push('run kb doctor --fix to rewrite the frontmatter from the database');
    if (report.frontmatter.some((entry) => entry.fixError)) lines.push('fix the files named "not fixed" above, then run kb doctor --fix again');
  }
  lines.push(`${count(report.errors, 'error')}, ${count(report.warnings, 'warning')}`);
  return lines.join('\n');
}

/** The first three lines of one kind, then one line counting the rest. */
function firstThree(kind: string, each: string[]): string[] {
  if (each.length <= 4) return each;
  return [...each.slice(0, 3), `  and ${each.length - 3} more ${kind} (kb doctor --verbose lists them all)`];
}

type StaleTempFile = Report['staleTempFiles'][number];

function staleTempLine(file: StaleTempFile): string {
  if (file.removed) return `fixed: removed ${file.path} (a temp file of kb process ${file.pid}, which is gone)`;
  const why = file.removeError ? ` (not removed: ${file.removeError})` : '; kb doctor --fix removes it';
  return `warning: ${file.path}: a temp file left by kb process ${file.pid}, which is gone${why}`;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
