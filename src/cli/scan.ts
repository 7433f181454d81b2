// kb scan: read the knowledge base's notes and cards into the database.
import { counted } from './plural.ts';
import type { Command } from 'commander';
import { noSourcesMessage } from '../kb/note-folders.ts';
import type { Diagnostic } from '../model/knowledge-base.ts';
import { helpText } from './help-layout.ts';
import { fittedToStderr, fittedToTerminal } from './terminal-output.ts';

export function register(program: Command): void {
  program
    .command('scan')
    .description('read notes (notes/, or the folders in kb.json\'s notesFolders) and cards/ into the database: new, changed (edited), moved (another file or folder; their reviews kept) and removed cards, errors and warnings')
    .option('--json', 'print the report as JSON, every error and warning listed (the text report shows a problem met in many files once, with a count)')
    .option('--full', 'read and parse every file, not only those changed since the last scan')
    .option('--write-ids', 'write missing card ids into the files even in the bundled (read-only) knowledge base; for maintainers')
    .addHelpText(
      'after',
      helpText(`
Missing card ids are written into the files of a personal knowledge base (only the id is
inserted; the write is atomic). The bundled knowledge base is read-only: cards without an
id there get an id derived from their file and question, kept in the database only. So does
a note kb cannot write into (made read-only with chmod a-w, reached through a symbolic
link): each scan tries again, and writes that same id once it can, so its reviews stay.
Exit code 1 when any file has an error; the other files are scanned all the same.`),
    )
    .action(async (options: { json?: boolean; full?: boolean; writeIds?: boolean }, command: Command) => {
      const { openKnowledgeBase } = await import('./context.ts');
      const { scanKnowledgeBase } = await import('../app/scan/scan-kb.ts');
      const kb = openKnowledgeBase({ kb: command.optsWithGlobals().kb });
      const progress = progressLine(process.stderr);
      try {
        const report = await scanKnowledgeBase(kb, { full: options.full, writeIds: options.writeIds, onProgress: progress.update });
        progress.clear();
        (await import('../app/review-log/open-review-log.ts')).replayScannedCards(kb);
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ ...report, bundled: kb.bundled, dbPath: kb.dbPath }, null, 2)}\n`);
        } else {
          const problems = diagnosticLines([...report.errors, ...report.warnings]);
          // Wrapped on a terminal under "warning: " (the terminal broke them mid-word); piped, one line each.
          if (problems.length > 0) process.stderr.write(`${await fittedToStderr(problems.join('\n'))}\n`);
          const { cards, files } = report;
          const out = [
            `${kb.root}${kb.bundled ? ' (bundled, read-only)' : ''}: ${counted(files.total, 'file')}, ${files.parsed} parsed`,
            `cards: ${cards.added} added, ${cards.changed} changed, ${movedCount(cards)}, ${cards.restored} restored, ${cards.removed} removed, ${cards.unchanged} unchanged; ${cards.total} in total, ${cards.orphans} orphaned`,
          ];
          if (report.readAgain) out.push(`every file read again: ${report.readAgain}`);
          const written = report.idsWritten.reduce((sum, entry) => sum + entry.count, 0);
          if (written > 0) out.push(`ids written: ${written} in ${counted(report.idsWritten.length, 'file')}`);
          if (files.total === 0) out.push(noSourcesMessage(report.lookedIn));
          out.push(`${counted(report.errors.length, 'error')}, ${counted(report.warnings.length, 'warning')}`);
          process.stdout.write(`${await fittedToTerminal(out.join('\n'))}\n`);
        }
        if (report.errors.length > 0) process.exitCode = 1;
      } finally {
        progress.clear();
        kb.db.close();
      }
    });
}

/** `2 moved`, and whether their deck changed with their folder: `2 moved (deck changed)`, `3 moved (1 with deck changed)`. */
export function movedCount(cards: { moved: number; movedToAnotherDeck: number }): string {
  const { moved, movedToAnotherDeck: decks } = cards;
  if (decks === 0) return `${moved} moved`;
  return `${moved} moved (${decks === moved ? 'deck changed' : `${decks} with deck changed`})`;
}

export function formatDiagnostic(diagnostic: Diagnostic): string {
  const where = diagnostic.line ? `${diagnostic.file}:${diagnostic.line}` : diagnostic.file;
  return `${diagnostic.severity}: ${where}: ${diagnostic.message}`;
}

/**
 * The lines kb scan prints for its errors and warnings. One problem met in many files (two kb
 * scan at once: the later one finds every note changed) shows its first `shown` files, then
 * one line counting the rest, rather than thousands of lines; --json lists every one.
 */
export function diagnosticLines(diagnostics: readonly Diagnostic[], shown = 3): string[] {
  const groups = new Map<string, { severity: Diagnostic['severity']; message: string; printed: Set<string>; more: Set<string> }>();
  const lines: string[] = [];
  for (const diagnostic of diagnostics) {
    const key = `${diagnostic.severity}\0${diagnostic.message}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { severity: diagnostic.severity, message: diagnostic.message, printed: new Set(), more: new Set() }));
    if (group.printed.has(diagnostic.file) || group.printed.size < shown) {
      group.printed.add(diagnostic.file);
      lines.push(formatDiagnostic(diagnostic));
    } else {
      group.more.add(diagnostic.file);
    }
  }
  for (const { severity, message, more } of groups.values()) {
    if (more.size > 0) lines.push(`${severity}: ${counted(more.size, 'more file')}: ${message} (kb scan --json lists every file)`);
  }
  return lines;
}

/** "scanning 1200/10000" on one rewritten line, only on a terminal and only for scans long enough to notice. */
export function progressLine(stream: NodeJS.WriteStream, verb = 'scanning') {
  let shown = false;
  let last = 0;
  const started = Date.now();
  return {
    update(done: number, total: number): void {
      if (!stream.isTTY) return;
      const now = Date.now();
      if (now - started < 300 || (now - last < 100 && done < total)) return;
      last = now;
      shown = true;
      stream.write(`\r\x1b[K${verb} ${done}/${total} files`);
    },
    clear(): void {
      if (shown) stream.write('\r\x1b[K');
      shown = false;
    },
  };
}
