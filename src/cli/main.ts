// kb's entry point: one file per command under src/cli/, each exporting `register`.
// Command files keep their heavy imports (Ink, the engine) inside the action, so
// `kb --help` and the scriptable commands start fast.
import { Command, CommanderError } from 'commander';
import { UserError } from './errors.ts';

const program = new Command('kb')
  .description('Spaced-repetition knowledge base and quiz for LLM inference, with runnable labs')
  .option('--kb <dir>', 'knowledge base folder (default: $KB_DIR, the nearest one up from here, else the bundled one)')
  .showHelpAfterError()
  .exitOverride();

// Commands, in the order `kb --help` lists them.
const commands: Array<{ register(program: Command): void }> = [];
for (const command of commands) command.register(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  if (error instanceof UserError) {
    process.stderr.write(`kb: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  throw error;
}
