// kb add: put a new question into the knowledge base (a note, or a card in a deck) with its
// frontmatter and id written by kb, then scan so it is in today's queue at once.
import { spawnSync } from 'node:child_process';
import { fstatSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { Option, type Command } from 'commander';
import type { AddedCard } from '../app/add-note.ts';
import type { Diagnostic, Difficulty } from '../model/knowledge-base.ts';
import { defaultEditor, editorFailure, editorInvocation } from '../kb/editor.ts';
import { ExitCode, UserError } from './errors.ts';
import { counted } from './plural.ts';
import { helpText } from './help-layout.ts';
import { fittedToStderr, fittedToTerminal } from './terminal-output.ts';

interface AddFlags {
  topic?: string;
  tags?: string;
  difficulty?: Difficulty;
  lab?: string;
  deck?: string;
  answer?: string;
  edit?: boolean;
  json?: boolean;
}

const READ_ONLY = 'the bundled knowledge base is read-only; make your own with kb init DIR, then kb --kb DIR add … (or run kb add inside DIR)';
const NO_ANSWER = 'no answer given: use --answer TEXT, --answer - (stdin) or --edit ($EDITOR)';
// The editor takes over kb's terminal: with stdin or stdout elsewhere (a pipe, /dev/null, a
// script), vi was started anyway, reading keys from the pipe or drawing into it.
const EDIT_NEEDS_TERMINAL = '--edit needs a terminal for the editor (stdin or stdout is no TTY); nothing was added: give the answer with --answer TEXT, or --answer - to read it from stdin';

export function register(program: Command): void {
  program
    .command('add')
    .description('add a question to your knowledge base: a new note (notes/<topic>/), or a card in a deck with --deck')
    .argument('<question...>', 'the question (quote it, or give it as words)')
    .option('--topic <topic>', 'folder under notes/ for the note, in any script\'s letters and digits, / between folders (default: "inbox")')
    .option('--tags <list>', 'comma-separated tags of the note (default: the topic)')
    .addOption(new Option('--difficulty <level>', 'the note\'s difficulty').choices(['easy', 'medium', 'hard']).default('medium'))
    .option('--lab <name>', 'link the card to a lab of this knowledge base (a file in lab/)')
    .option('--deck <name>', 'add a card to cards/<name>.md instead of a note (the deck is created when missing)')
    .option('--answer <text>', 'the answer (Markdown); - reads it from stdin')
    .option('--edit', 'write the answer in $VISUAL / $EDITOR, opened at the answer; an empty answer adds nothing; needs a terminal (exit 2 without one)')
    .option('--json', 'print {path, id, kind, line, scan} as JSON')
    .addHelpText(
      'after',
      helpText(`
Examples:
  kb add "What does TTFT measure?" --topic metrics --tags metrics,ttft \\
         --answer "Time from submitting a request to its first output token."
  kb add "Why is decode memory-bound?" --deck prefill-decode --edit
  kb add "What is PagedAttention?" --topic kv-cache --lab paged-kv \\
         --answer - < answer.md

A note is written to notes/<topic>/<slug>.md (under the first of kb.json's notesFolders
instead of notes/, at the top for "."; the slug is the question's letters and digits
in any script, what-is-ttft or 什么是首字延迟, at most 60 columns, or the card id when it
has none; a topic folder there already under another case, such as a vault's Inbox/ or
GPU/ for inbox or --topic gpu, is that folder) in the format of kb's notes:
created and next_review today, review_count 0, difficulty, mastery_level 0.0, tags, lab,
id; the question as its H1 and a "## Answer" section. An existing file is never
overwritten, and a topic in a folder kb never reads (a vault's templates or daily notes
folder, node_modules) is refused. --edit with an answer left empty (or an editor that fails, or one left
with Ctrl-C: exit 130) adds nothing. --edit needs a terminal: with stdin or stdout a
pipe it is refused (exit 2) before anything is written; use --answer there.
A note written whose scan then fails (a full disk under the database) stays, with what
you typed; kb says so, and kb scan reads it in.
Text that kb would read back differently (a # or ## heading inside an answer, which
would end it) is refused with the reason, before anything is written.
With --deck the card goes at the end of cards/<name>.md (a heading, kb's id comment, the
answer); nothing already in the deck changes, byte for byte. Deck cards take their tags
from the deck's frontmatter, so --topic, --tags and --difficulty are for notes only.
The new card is scanned at once: due today, unless today's new-card allowance
(newPerDay) is already taken, and then it says so. The bundled
knowledge base is read-only: make your own with kb init DIR.`),
    )
    .action(async (words: string[], flags: AddFlags, command: Command) => {
      const question = words.join(' ');
      if (question.trim() === '') throw new UserError('the question is empty: kb add "What is TTFT?" --answer …');
      if (flags.answer === undefined && !flags.edit) throw new UserError(NO_ANSWER);
      if (flags.edit && (!process.stdin.isTTY || !process.stdout.isTTY)) throw new UserError(EDIT_NEEDS_TERMINAL, ExitCode.noTerminal);
      if (flags.deck !== undefined) {
        const noteOnly = (['topic', 'tags', 'difficulty'] as const).filter((name) => command.getOptionValueSource(name) === 'cli');
        if (noteOnly.length > 0) throw new UserError(`--${noteOnly[0]} is for notes; a card in a deck takes its tags from the deck's frontmatter`);
      }

      const where = { kb: command.optsWithGlobals().kb as string | undefined };
      // Refused before the database is opened: a refused add leaves no trace, not even bundled.db.
      const { locateKnowledgeBase } = await import('../kb/location.ts');
      if (isBundled(() => locateKnowledgeBase(where))) throw new UserError(READ_ONLY);
      if (flags.answer === '-') refuseFolderStdin();
      const { openKnowledgeBase } = await import('./context.ts');
      const kb = openKnowledgeBase(where);
      try {
        const answer = flags.answer === '-' ? await readStdin() : (flags.answer ?? '');
        const add = await import('../app/add-note.ts');
        if (!flags.edit && add.normalizeAnswer(answer) === '') throw new UserError(`the answer is empty; ${NO_ANSWER.replace('no answer given: ', '')}`);
        // kb scan skips a file with a NUL byte as binary: such a note was written, then never asked.
        if (`${question}${answer}`.includes('\0')) throw new UserError('the question or answer holds a NUL byte (binary input?); nothing was added');

        const { cardQueries } = await import('../store/card-rows.ts');
        const { reviewDayLabel } = await import('../srs/study-day.ts');
        const cards = cardQueries(kb.db);
        const idTaken = (id: string) => cards.find(id) !== null;
        let added: AddedCard;
        try {
          added = flags.deck !== undefined
            ? add.addDeckCard(kb.root, { question, answer, deck: flags.deck, lab: flags.lab ?? null }, { idTaken })
            : add.addNote(kb.root, {
              question,
              answer,
              topic: flags.topic ?? add.DEFAULT_TOPIC,
              tags: flags.tags === undefined ? [] : add.splitTags(flags.tags),
              difficulty: flags.difficulty ?? 'medium',
              lab: flags.lab ?? null,
              today: reviewDayLabel(Date.now(), kb.config.dayStartsAt),
            }, { idTaken, notesFolder: kb.config.notesFolders[0], idKey: kb.config.idKey });
        } catch (error) {
          const { FileChangedError, OutsideKnowledgeBaseError } = await import('../kb/atomic-write.ts');
          // A note there that the database does not hold yet was most likely added by a kb add
          // whose scan failed (a full disk): what it needs is a scan, not a second add.
          if (error instanceof add.AddError && error.existing !== null && cards.liveIdsIn(error.existing).length === 0) {
            throw new UserError(`${error.message}; it is not read into the database yet: kb scan reads it in`);
          }
          if (error instanceof add.AddError || error instanceof FileChangedError || error instanceof OutsideKnowledgeBaseError) throw new UserError(error.message);
          throw error;
        }

        if (flags.edit) {
          const edited = editAnswer(added.abs, added.answerLine);
          const card = edited.failed === null ? add.readAddedCard(added) : null;
          const why = edited.failed ?? (card !== null && card.back === '' && card.calc === null ? 'the answer was left empty' : null);
          if (why !== null) {
            const withdrawn = add.withdrawAdded(kb.root, added);
            const exitCode = edited.interrupted ? ExitCode.interrupted : ExitCode.userError;
            throw new UserError(withdrawn ? `nothing added: ${why}` : `${why}; the card could not be found in ${added.path} to take it back: check that file`, exitCode);
          }
        }

        const { scanKnowledgeBase } = await import('../app/scan/scan-kb.ts');
        const { formatDiagnostic } = await import('./scan.ts');
        let report;
        try {
          report = await scanKnowledgeBase(kb);
        } catch (error) {
          if (error instanceof UserError) throw error;
          // The file is written and holds what the user typed; only the database (a cache of the
          // files) missed it, its change rolled back (a full disk: found by a probe, which said
          // "rolled back", left the note, and the rerun it advised was refused as "already exists").
          const { describeFault } = await import('./fault.ts');
          throw new UserError(`${shownPath(added.abs)} is written (card id ${added.id}), but not read into the database: ${describeFault(error, 'run kb scan to read it in')}`, undefined, { cause: error });
        }
        const about = (d: Diagnostic) => d.file === added.path;
        const problems = [...report.errors.filter(about), ...report.warnings.filter(about)];
        if (problems.length > 0) process.stderr.write(`${await fittedToStderr(problems.map(formatDiagnostic).join('\n'))}\n`);
        if (report.errors.some(about)) process.exitCode = 1;
        const stored = cards.find(added.id);
        const inQueue = stored !== null;

        if (flags.json) {
          process.stdout.write(`${JSON.stringify({ path: added.path, file: added.abs, id: added.id, kind: added.kind, line: added.line, scan: report }, null, 2)}\n`);
          return;
        }
        // The line as the scan left the deck: ids it wrote into older cards above moved the new one down.
        const shown = added.kind === 'note' ? shownPath(added.abs) : `${shownPath(added.abs)}:${stored?.line ?? added.line}`;
        const lines = [`added ${added.kind === 'note' ? 'note' : 'card to'} ${shown}`, `card id ${added.id}`];
        if (!inQueue) lines.push('not in the queue yet: kb scan shows why');
        else {
          // In today's queue only within the day's new-card allowance: behind it, it waits its turn (as in Anki).
          const { ReviewService } = await import('../app/review/review-service.ts');
          const queue = new ReviewService(kb).queue({}, Date.now());
          const today = [...queue.learning, ...queue.review, ...queue.new].some((card) => card.id === added.id);
          if (today) lines.push('due today: kb review (or kb due to see the queue)');
          // One line, wrapped to the terminal by fittedToTerminal: two broke the sentence at 60 columns.
          // newPerDay 0 (new cards paused) brings none in on a later day either: "waits behind
          // today's 0 new cards ... for a later session" promised a day that does not come.
          else if (kb.config.newPerDay === 0) lines.push('new: newPerDay is 0 in kb.json, so kb review brings in no new card until you raise it; kb quiz asks it any time');
          else lines.push(`new: it waits behind today's ${counted(kb.config.newPerDay, 'new card')} (newPerDay in kb.json) for a later session; kb quiz asks it any time`);
        }
        process.stdout.write(await fittedToTerminal(`${lines.join('\n')}\n`));
      } finally {
        kb.db.close();
      }
    });
}

/**
 * Node reads a folder given as stdin (`--answer - < somedir`) as empty, without an error, and
 * kb said "the answer is empty" as if one had been given. Refused for what it is, before the
 * database is opened (nothing written). Checked apart from the read, which waits for a typed
 * answer only once the knowledge base is known to open.
 */
function refuseFolderStdin(): void {
  let folder = false;
  try {
    folder = fstatSync(0).isDirectory();
  } catch {
    // No stat (stdin closed): the read says what is wrong.
  }
  if (folder) throw new UserError('--answer - could not read stdin: it is a folder, not a file or a pipe; nothing was added');
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('kb: reading the answer from stdin; end it with Ctrl-D\n');
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UserError(`--answer - could not read stdin (${code}); nothing was added`, undefined, { cause: error });
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Opens the file in the editor at the answer's line, as kb review's `e` key does ($VISUAL,
 * else $EDITOR, else vi; its words split on spaces, then the file at its line in the form
 * that editor takes: editorInvocation). Returns why it failed (null: it did not), and
 * whether that was a Ctrl-C.
 */
function editAnswer(file: string, line: number): { failed: string | null; interrupted: boolean } {
  const { command, args } = editorInvocation(defaultEditor(), line, file);
  // Ctrl-C in the editor reaches kb's whole process group. Without a listener Node died at
  // once, leaving the new note with its empty answer in the knowledge base (and in the next
  // kb review). Listening keeps kb alive while the editor runs: the editor decides what
  // Ctrl-C means (vi ignores it), and when it dies of it kb takes the card back below.
  const ignore = () => {};
  process.on('SIGINT', ignore);
  let result;
  try {
    result = spawnSync(command, args, { stdio: 'inherit' });
  } finally {
    process.off('SIGINT', ignore);
  }
  // A shell script as the editor reports Ctrl-C as status 130, as shells do.
  const interrupted = !result.error && (result.signal === 'SIGINT' || result.status === ExitCode.interrupted);
  return { failed: editorFailure(command, result), interrupted };
}

/** Whether the knowledge base found is the bundled one; a location error is left to openKnowledgeBase to report. */
function isBundled(locate: () => { bundled: boolean }): boolean {
  try {
    return locate().bundled;
  } catch {
    return false;
  }
}

/** Relative to the working directory when the file is below it, else absolute. */
function shownPath(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
}
