// kb's entry point: one file per command under src/cli/, each exporting `register`.
// Command files keep their heavy imports (Ink, the engine) inside the action, so
// `kb --help` and the scriptable commands start fast.
import { Command, CommanderError } from 'commander';
import { EXIT_CODES_HELP, UserError } from './errors.ts';
import { exitOnFault } from './fault.ts';
import { helpLayout, helpText } from './help-layout.ts';
import { fittedToStderr, terminalColumns } from './terminal-output.ts';
import * as initCommand from './init.ts';
import * as addCommand from './add.ts';
import * as scanCommand from './scan.ts';
import * as doctorCommand from './doctor.ts';
import * as labCommand from './lab/lab-run.ts';
import * as reviewCommand from './review.ts';
import * as quizCommand from './quiz.ts';
import * as dueCommand from './due.ts';
import * as rateCommand from './rate.ts';
import * as undoCommand from './undo.ts';
import * as statsCommand from './stats.ts';
import * as cardsCommand from './cards.ts';
import * as cardActionCommands from './card-actions.ts';
import * as generateCommand from './generate.ts';
import * as serveCommand from './serve.ts';
import * as syncCommand from './sync.ts';
import * as optimizeCommand from './optimize.ts';
import * as revlogCommands from './revlog.ts';
import packageJson from '../../package.json' with { type: 'json' };

/** A usage error commander reported, with what it wrote after it; printed when parsing ends. */
let usageError: string | null = null;

const program = new Command('kb')
  .description('Spaced-repetition knowledge base and quiz for LLM inference, with runnable labs')
  .version(packageJson.version, '-V, --version', 'print the version of kb')
  .option('--kb <dir>', 'knowledge base folder (default: $KB_DIR, the nearest one up from here, else the bundled one)')
  .addHelpText('after', helpText(`\n${EXIT_CODES_HELP}\n\nErrors are one line; KB_DEBUG=1 adds the stack trace. Output fits the terminal (piped: 80 columns, or $COLUMNS); a file path or URL is never broken, even where it runs past.`))
  // Before the commands are registered: each one copies its parent's help settings when made.
  .configureHelp(helpLayout)
  // Help's option and command lists take the same width as the rest of kb's output ($COLUMNS when piped).
  // A usage error is one line as kb's own are ("kb: unknown option '--jsno'", commander's
  // "Did you mean ...?" after it), then where the help is: the whole help after it pushed the
  // error off an 80x24 screen. It is held, with the help's line after it, until the catch
  // below prints it fitted under its "kb: " as kb's own errors are (fitting is loaded lazily,
  // and commander writes synchronously): the terminal broke a list of choices at column 0.
  .configureOutput({
    getOutHelpWidth: () => terminalColumns(process.stdout) ?? 80,
    getErrHelpWidth: () => terminalColumns(process.stderr) ?? 80,
    outputError: (text) => void (usageError = text.replace(/^error: /, 'kb: ')),
    writeErr: (text) => (usageError === null ? process.stderr.write(text) : void (usageError += text)),
  })
  .showHelpAfterError('(kb --help lists the commands)')
  .exitOverride();

// Commands, in the order `kb --help` lists them.
const commands: Array<{ register(program: Command): void }> = [initCommand, addCommand, scanCommand, reviewCommand, quizCommand, dueCommand, rateCommand, undoCommand, cardsCommand, cardActionCommands, statsCommand, syncCommand, optimizeCommand, revlogCommands, doctorCommand, labCommand, generateCommand, serveCommand];
for (const command of commands) command.register(program);
/** Each command's usage errors point at its own help. */
function pointAtOwnHelp(command: Command, path: string): void {
  for (const sub of command.commands) {
    const name = `${path} ${sub.name()}`;
    sub.showHelpAfterError(`(${name} --help for its options)`);
    pointAtOwnHelp(sub, name);
  }
}
pointAtOwnHelp(program, 'kb');

// A reader that stops early (`kb lab list | head -1`, a pager quit) closes the pipe: kb stops
// quietly, as cat and git do, instead of reporting the failed write as a bug.
process.stdout.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? process.exit(0) : exitOnFault(error)));

// An error thrown outside the command's own promise (a timer, a stream's event) gets the same one line.
process.on('uncaughtException', exitOnFault);
process.on('unhandledRejection', exitOnFault);

// `kb help reveiw`: commander printed the whole help, exit 1, without a word on the typo; read
// as `kb reveiw`, it says the command is unknown and which one was meant.
const argv = [...process.argv];
if (argv[2] === 'help' && argv[3] !== undefined && !argv[3].startsWith('-') && !program.commands.some((c) => c.name() === argv[3] || c.aliases().includes(argv[3]))) argv.splice(2, 1);

// No top-level await: the start-up bundle is a CommonJS file (bin/bundle.js).
program.parseAsync(argv).catch((error: unknown) => {
  if (error instanceof CommanderError && usageError === null) process.exit(error.exitCode); // --help, --version: printed already
  if (!(error instanceof CommanderError || error instanceof UserError)) return exitOnFault(error);
  const exitCode = error.exitCode;
  void fittedToStderr(error instanceof UserError ? `kb: ${error.message}\n` : (usageError ?? '')).then((text) => {
    process.stderr.write(text);
    // A fault said as a user error (a damaged database) keeps the trace README promises for KB_DEBUG=1.
    const cause = error instanceof UserError ? error.cause : undefined;
    if (process.env.KB_DEBUG === '1' && cause instanceof Error && cause.stack) process.stderr.write(`${cause.stack}\n`);
    process.exit(exitCode);
  });
});
