// kb sync (review on several machines through git) and kb merge-driver (what git runs for
// notes both sides reviewed; kb sync installs it).
import { counted } from './plural.ts';
import type { Command } from 'commander';
import { ExitCode, UserError } from './errors.ts';
import { helpText } from './help-layout.ts';

export function register(program: Command): void {
  program
    .command('sync')
    .description('review on several machines: commit the review log, git pull --rebase, replay the merged logs, rewrite review fields, commit, git push')
    .option('--remote <name>', 'the git remote (default: the branch upstream, else origin)')
    .option('--json', 'print what was done as JSON')
    .addHelpText(
      'after',
      helpText('\nEvery rating, undo and card action is appended to reviews/<device>.jsonl (one file per device, so\n' +
        "git never conflicts on them); the database is a cache replayed from all devices' logs. kb sync\n" +
        "installs kb's merge driver (git config + .gitattributes) so a note whose four review fields\n" +
        'both sides rewrote merges cleanly. It refuses on uncommitted changes other than this device\'s\n' +
        'appends to its log, review fields and the card ids kb scan wrote (untracked files are left\n' +
        'alone; another device\'s log changed here is what a git command stopped midway leaves), while a rebase\n' +
        "or merge is in progress, and on a detached HEAD; it stops on a conflict outside those fields,\n" +
        "leaving git's conflict for you (a pull stopped otherwise, by a full disk, Ctrl-C or the merge driver\n" +
        'failing, it takes back with ' +
        'git rebase --abort, removing the .merge_file_* copies git left for the driver; when git cannot yet, the\n' +
        'next kb sync does it first, removing a file in the way only when it is identical to its copy in\n' +
        'this device\'s commit). A push refused\n' +
        'because the remote moved meanwhile (the other clone pushed) is pulled and pushed once more. A rating\n' +
        'another kb makes between kb sync\'s commit and its pull is committed too, and the pull made again.\n' +
        'Ratings made while git rebases are kept in the database and appended to\n' +
        'the log (and the notes written) by the first kb command after git\'s operation ends.'),
    )
    .action(async (options: { remote?: string; json?: boolean }, command: Command) => {
      const { openScannedKnowledgeBase } = await import('./context.ts');
      const { syncKnowledgeBase, SyncRefused } = await import('../app/sync/sync-kb.ts');
      const { GitError } = await import('../app/sync/git.ts');
      const { currentKbCommand } = await import('../app/sync/merge-driver.ts');
      const { deviceId } = await import('../store/db.ts');
      const open = () => openScannedKnowledgeBase({ kb: command.optsWithGlobals().kb });
      const first = await open();
      const root = first.root;
      const device = deviceId(first.db);
      const { notesFolders, idKey } = first.config;
      first.db.close();
      if (first.bundled) throw new UserError('the bundled knowledge base is read-only and not a git clone of yours; kb init DIR makes one of your own to keep in git');
      const replay = async () => {
        const kb = await open();
        try {
          return (kb.db.prepare('SELECT count(*) AS n FROM review_events').get() as { n: number }).n;
        } finally {
          kb.db.close();
        }
      };
      let report;
      try {
        report = await syncKnowledgeBase({ root, remote: options.remote, kbCommand: currentKbCommand(), device, notesFolders, idKey }, { replay });
      } catch (error) {
        if (error instanceof GitError && error.interrupted) throw new UserError(`sync: ${error.message}`, ExitCode.interrupted);
        if (error instanceof SyncRefused || error instanceof GitError) throw new UserError(`sync: ${error.message}`);
        throw error;
      }
      if (options.json) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      const lines = [
        report.committedBefore !== null ? `committed ${report.committedBefore}` : 'nothing of this device to commit',
        report.pulled ? `pulled ${report.pulled}: ${counted(report.eventsAfter - report.eventsBefore, 'new review event')} replayed` : 'nothing to pull yet (the remote has no such branch)',
        report.committedAfter ? 'committed the review fields rewritten from the merged logs' : 'review fields already up to date',
        report.pushed !== null ? `pushed to ${report.pushed}` : `nothing to push (${report.remote} has it all)`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });

  program
    .command('merge-driver')
    .description("git's merge driver for notes (installed by kb sync): merges a note whose review fields both sides rewrote")
    .argument('<base>', "git's %O: the common ancestor")
    .argument('<ours>', "git's %A: our version, where the result is written")
    .argument('<theirs>', "git's %B: their version")
    .argument('[path]', "git's %P: the note's path")
    .addHelpText('after', helpText(`\nExits 0 merged, 1 with conflicts left in <ours>, 2 failed (a full disk, say): it then prints "kb merge-driver failed on <path>: <why>" and leaves <ours> as it was or merged, never half written.\nInstalled as: git config merge.kb-review.driver "<node> <kb>/bin/kb merge-driver %O %A %B %P" (the absolute paths of the Node and kb that ran kb sync, written again by each kb sync) and "*.md merge=kb-review" in .gitattributes.`))
    .action(async (base: string, ours: string, theirs: string, path: string | undefined) => {
      const { runMergeDriver } = await import('../app/sync/merge-driver.ts');
      process.exitCode = runMergeDriver(base, ours, theirs, path ?? ours);
    });
}
