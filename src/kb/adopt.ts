// kb init on a folder that already holds notes (an Obsidian vault, a folder of Markdown):
// adopt it as it is. Only kb.json and the .gitignore line for kb's state are written; no
// note is moved, copied or changed (ids are written by the first scan, as for any note).
// A vault whose notes use `id:` for ids of their own (a Zettelkasten's `id: 202311201230`)
// gets kb's ids under `kb_id:` instead (kb.json's idKey): its own are never read or touched.
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TEMP_FILE_GLOB } from './atomic-write.ts';
import { CARD_ID_LENGTH } from './card-identity.ts';
import { DEFAULT_ID_KEY } from './card-meta.ts';
import { configFileName, defaultConfig } from './config.ts';
import { locateFrontmatter, parseFrontmatter } from './frontmatter.ts';
import { isBundledRoot, isObsidianVault, looksLikeKnowledgeBase, stateFolderName, type KbLocation } from './location.ts';
import { isDirectory } from '../model/is-directory.ts';
import { describeFolders, sourceKind } from './note-folders.ts';
import { walkKnowledgeBase } from './walk.ts';
import type { KbPath } from '../model/knowledge-base.ts';

export interface Adoption {
  /** Notes found with the chosen folders. */
  notes: number;
  /** Card decks (cards/) found beside them. */
  decks: number;
  notesFolders: string[];
  /** How messages name the folders read: those that are there. */
  lookedIn: string;
  /** kb folders (cards/, lab/) at the top of a vault read as a whole: they are read as decks and labs, not notes. */
  kbFolders: string[];
  /** kb.json's idKey: `id`, or `kb_id` where notes hold ids of their own under `id:`. */
  idKey: string;
  /** A note whose `id:` is its own (path, line and value as written), the reason for `kb_id`; null with `id`. */
  ownId: { path: KbPath; line: number; value: string } | null;
}

/** The key kb keeps its ids under in a vault whose notes use `id:` for ids of their own. */
export const VAULT_ID_KEY = 'kb_id';

// kb's own ids as it makes them (card-identity.ts): a letter, then lowercase base32.
const KB_MADE_ID = new RegExp(`^[a-z][a-z2-7]{${CARD_ID_LENGTH - 1}}$`);

/**
 * The first note (in walk order) whose frontmatter `id:` holds a value kb did not make: the
 * vault's own id (a number, a title, a list, a timestamp). Notes kb wrote ids into (a kb.json
 * lost and the folder adopted again) have ids of kb's form and keep `id`.
 */
export function ownNoteId(root: string, notesFolders: readonly string[]): Adoption['ownId'] {
  for (const file of walkKnowledgeBase(root, notesFolders).files) {
    if (sourceKind(file.path, notesFolders) !== 'note') continue;
    let text: string;
    try {
      text = readFileSync(file.abs, 'utf8');
    } catch {
      continue; // unreadable: the scan says so
    }
    const block = locateFrontmatter(text);
    // Only a block with an id line is parsed: adopting a large vault reads each note once, cheaply.
    if (block === null || !/(?:^|\n)id[ \t]*:/.test(text.slice(block.yamlStart, block.yamlEnd))) continue;
    const fm = parseFrontmatter(file.path, text);
    if (fm.data === null || !Object.hasOwn(fm.data, DEFAULT_ID_KEY)) continue;
    const value: unknown = fm.data[DEFAULT_ID_KEY];
    if (value === null || value === '' || (typeof value === 'string' && KB_MADE_ID.test(value))) continue;
    const line = fm.keyLines.get(DEFAULT_ID_KEY) ?? 1;
    const shown = text.split(/\r?\n/)[line - 1]?.replace(/^id[ \t]*:[ \t]*/, '').trim() ?? JSON.stringify(value);
    return { path: file.path, line, value: shown };
  }
  return null;
}

/**
 * The notes folders of a folder being adopted: `notes` when it is laid out as kb's own (a
 * notes/ folder and no Markdown beside it), else `.`: the whole folder, as an Obsidian vault
 * (a .obsidian/ folder) or a plain folder of Markdown files is read.
 */
export function chooseNotesFolders(root: string): string[] {
  const topMarkdown = readdirSync(root, { withFileTypes: true }).some((entry) => entry.isFile() && /\.md$/i.test(entry.name) && !entry.name.startsWith('.'));
  const kbLayout = isDirectory(join(root, 'notes')) && !topMarkdown && !isDirectory(join(root, '.obsidian'));
  return kbLayout ? ['notes'] : ['.'];
}

/** How many notes and card decks a knowledge base at `root` would read with these folders. */
export function countSources(root: string, notesFolders: readonly string[]): { notes: number; decks: number } {
  const kinds = walkKnowledgeBase(root, notesFolders).files.map((file) => sourceKind(file.path, notesFolders));
  return { notes: kinds.filter((kind) => kind === 'note').length, decks: kinds.filter((kind) => kind === 'cards').length };
}

/** Writes kb.json (defaults, with the notes folders) and makes .gitignore ignore .kb/, keeping what it held. */
export function adoptFolder(root: string): Adoption {
  const notesFolders = chooseNotesFolders(root);
  const ownId = ownNoteId(root, notesFolders);
  const idKey = ownId === null ? DEFAULT_ID_KEY : VAULT_ID_KEY;
  writeFileSync(join(root, configFileName), `${JSON.stringify({ ...defaultConfig, notesFolders, idKey }, null, 2)}\n`, { flag: 'wx' });
  ignoreStateFolder(root);
  const kbFolders = notesFolders.includes('.') ? ['cards', 'lab'].filter((folder) => isDirectory(join(root, folder))) : [];
  // cards/ named only where there is one: a folder with notes/ alone was said to have its notes "in notes/, cards/".
  const lookedIn = describeFolders(notesFolders, isDirectory(join(root, 'cards')));
  return { ...countSources(root, notesFolders), notesFolders, lookedIn, kbFolders, idKey, ownId };
}

function ignoreStateFolder(root: string): void {
  const path = join(root, '.gitignore');
  const wanted = [`${stateFolderName}/`, TEMP_FILE_GLOB];
  if (!existsSync(path)) {
    writeFileSync(path, `# kb's database and other state\n${wanted.join('\n')}\n`);
    return;
  }
  const text = readFileSync(path, 'utf8');
  const entries = new Set(text.split(/\r?\n/).map((entry) => entry.trim().replace(/^\//, '')));
  // The state folder may be listed as ".kb", ".kb/" or "/.kb/".
  const missing = wanted.filter((line) => !entries.has(line) && !entries.has(line.replace(/\/$/, '')));
  if (missing.length === 0) return;
  // In the file's own line ends: CRLF lines appended to as LF made a file of mixed ends.
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  appendFileSync(path, `${text === '' || text.endsWith('\n') ? '' : eol}# kb's database and other state${eol}${missing.join(eol)}${eol}`);
}

/** Whether a folder holds any Markdown file kb could read as a note (outside tool folders). */
export function holdsMarkdown(root: string): boolean {
  const { notes, decks } = countSources(root, ['.']);
  return notes + decks > 0;
}

/**
 * kb found no kb.json at or above `cwd` and took the bundled knowledge base, but `cwd` holds
 * notes of its own (notes/, cards/ or lab/, or an Obsidian vault, with Markdown that kb init .
 * adopts): the user most likely meant this folder. A line saying so and how to adopt it, else
 * null. Loose Markdown files alone (a project's README) say nothing.
 */
export function unadoptedFolderHint(location: KbLocation, cwd: string): string | null {
  if (location.source !== 'bundled') return null;
  const dir = resolve(cwd);
  if (isBundledRoot(dir)) return null;
  // Only where kb init . would adopt it: a notes/ folder with no Markdown in it got this line,
  // and then kb init . refused the folder as holding no notes.
  if ((!looksLikeKnowledgeBase(dir) && !isObsidianVault(dir)) || !holdsMarkdown(dir)) return null;
  // Two lines of under 80 columns once each has its "kb: ".
  return `this folder has notes but no ${configFileName}: using the bundled knowledge base\nmake this folder yours with: kb init .`;
}
