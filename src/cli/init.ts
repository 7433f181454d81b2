// kb init DIR: create a personal knowledge base.
import type { Command } from 'commander';
import { UserError } from './errors.ts';

export function register(program: Command): void {
  program
    .command('init')
    .description('create a personal knowledge base in DIR: a copy of the bundled notes, cards and labs, or empty')
    .argument('<dir>', 'a new or empty folder')
    .option('--empty', 'create empty notes/, cards/ and lab/ folders instead of copying the bundled content')
    .option('--json', 'print what was created as JSON')
    .addHelpText(
      'after',
      `
The new folder gets kb.json (settings, with their defaults) and a .gitignore for .kb/,
where its database will live. Inside it (or with --kb DIR, or KB_DIR=DIR) kb uses it
instead of the bundled knowledge base, with write-back of review dates into the notes.`,
    )
    .action(async (dir: string, options: { empty?: boolean; json?: boolean }) => {
      const { InitError, initKnowledgeBase } = await import('../kb/init.ts');
      let result;
      try {
        result = initKnowledgeBase(dir, { empty: options.empty });
      } catch (error) {
        if (error instanceof InitError) throw new UserError(error.message);
        throw error;
      }
      if (options.json) {
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        return;
      }
      const what = options.empty ? 'an empty knowledge base' : `a knowledge base with ${result.copied} files copied from the bundled one`;
      process.stdout.write(`created ${what} in ${result.root}\nnext: cd ${dir} && kb scan\n`);
    });
}
