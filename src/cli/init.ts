// kb init DIR: create a personal knowledge base.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { UserError } from './errors.ts';
import { helpText } from './help-layout.ts';
import { fittedToTerminal, terminalColumns } from './terminal-output.ts';
import { counted } from './plural.ts';

/** The next command as the user can paste it: no cd into the folder they are in, and a path with spaces quoted. */
export function nextCommand(dir: string, command: string, cwd = process.cwd()): string {
  if (resolve(cwd, dir) === resolve(cwd)) return command;
  const quoted = /^[\w@%+=:,./-]+$/.test(dir) ? dir : `'${dir.replaceAll("'", "'\\''")}'`;
  return `cd ${quoted} && ${command}`;
}

/**
 * `text` fitted to the terminal, then "next: <command>", or "next:" and the command on a line
 * of its own where they do not fit together. The command is never wrapped, so it pastes whole:
 * at 80 columns it broke inside its quoted question.
 */
async function withNextStep(text: string, dir: string, command: string): Promise<string> {
  const { default: stringWidth } = await import('string-width');
  const next = nextCommand(dir, command);
  const fits = stringWidth(`next: ${next}`) < (terminalColumns() ?? 80);
  return `${await fittedToTerminal(text)}\n${fits ? 'next: ' : 'next:\n  '}${next}\n`;
}

export function register(program: Command): void {
  program
    .command('init')
    .description('create a personal knowledge base in DIR (a copy of the bundled notes, cards and labs, or empty), or adopt a folder of notes such as an Obsidian vault')
    .argument('<dir>', 'a new or empty folder, or a folder of Markdown notes to adopt')
    .option('--empty', 'create empty notes/, cards/ and lab/ folders instead of copying the bundled content')
    .option('--json', 'print what was created as JSON')
    .addHelpText(
      'after',
      helpText(`
The new folder gets kb.json (settings, with their defaults) and a .gitignore for .kb/,
where its database will live, and for the temp files a killed kb can leave (.*.kb-tmp). Inside it (or with --kb DIR, or KB_DIR=DIR) kb uses it
instead of the bundled knowledge base, with write-back of review dates into the notes.

A folder that already holds Markdown notes (an Obsidian vault, a folder of .md files) is
adopted as it is: kb writes only kb.json and lines for .kb/ and .*.kb-tmp in .gitignore,
and never touches a
note (the first scan adds an id: line to each; kb_id: where the notes use id: for ids of
their own, such as a Zettelkasten's id: 202311201230, which kb then never reads or changes:
kb.json's idKey names the key). kb.json's notesFolders says where the notes
are: ["notes"] when the folder has a notes/ folder and no Markdown at its top, else ["."]
(the whole folder, without dot folders such as .obsidian/, .git/ and .kb/, node_modules/, the
vault's templates and daily notes folders as its Obsidian settings name them, or Excalidraw
drawings, *.excalidraw.md; cards/ and lab/ at the top are read as kb decks and labs). A folder that already has kb.json is left unchanged.`),
    )
    .action(async (dir: string, options: { empty?: boolean; json?: boolean }) => {
      const { InitError, initKnowledgeBase } = await import('../kb/init-kb.ts');
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
      if (result.existing) {
        process.stdout.write(await withNextStep(`${result.root} is already a knowledge base (it has ${result.configPath}); nothing changed`, dir, 'kb review'));
        return;
      }
      if (result.adopted) {
        const { notes, decks, lookedIn, kbFolders, idKey, ownId } = result.adopted;
        // Decks apart from notes: "3 notes" counted two deck files among them (found as a user).
        const found = [counted(notes, 'note'), ...(decks > 0 ? [counted(decks, 'card deck')] : [])].join(' and ');
        const lines = [
          `adopted ${result.root}: ${found} in ${lookedIn}`,
          `wrote ${result.configPath} and .gitignore lines for .kb/ and kb's temp files; no note was changed`,
          // A Zettelkasten's `id: 202311201230` was an error in every note, each skipped (found adopting a vault).
          ...(ownId !== null ? [`card ids: the notes use id: for ids of their own (${ownId.path}:${ownId.line}: id: ${ownId.value}), so kb keeps its card ids under ${idKey}: (kb.json's idKey) and never reads or changes id:`] : []),
          ...(kbFolders.length > 0 ? [`${kbFolders.map((folder) => `${folder}/`).join(' and ')} ${kbFolders.length === 1 ? 'is' : 'are'} read as kb ${kbFolders.map((folder) => (folder === 'cards' ? 'decks' : 'labs')).join(' and ')}, not as notes`] : []),
        ];
        process.stdout.write(await withNextStep(lines.join('\n'), dir, 'kb review'));
        return;
      }
      const what = options.empty ? 'an empty knowledge base' : `a knowledge base with ${result.copied} files copied from the bundled one`;
      // kb review scans on its way in; an empty one has nothing to review until a question is added.
      const next = options.empty ? `kb add "Your first question?" --answer "Its answer."` : 'kb review';
      process.stdout.write(await withNextStep(`created ${what} in ${result.root}`, dir, next));
    });
}
