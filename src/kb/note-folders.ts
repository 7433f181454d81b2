// Which files of a knowledge base are what: cards/ holds decks, lab/ holds labs, and the
// folders named by kb.json's `notesFolders` (default `notes`; `.` for a vault of notes such
// as Obsidian's) hold notes. cards/ and lab/ at the top are always kb's own, also under `.`.
import type { KbPath } from '../model/knowledge-base.ts';

export const DEFAULT_NOTES_FOLDERS: readonly string[] = ['notes'];

export type SourceKind = 'note' | 'cards' | 'lab';

/** `./x/` -> `x`, `.` stays `.`: the form paths are compared in. */
export function normalFolder(folder: string): string {
  const trimmed = folder.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  return trimmed === '' ? '.' : trimmed;
}

/** The notes folder a path is in (the innermost, when one holds another), or null. */
export function notesFolderOf(path: KbPath, notesFolders: readonly string[]): string | null {
  let best: string | null = null;
  for (const raw of notesFolders) {
    const folder = normalFolder(raw);
    const inside = folder === '.' || path.startsWith(`${folder}/`);
    if (inside && (best === null || best === '.' || folder.length > best.length)) best = folder;
  }
  return best;
}

export function sourceKind(path: KbPath, notesFolders: readonly string[] = DEFAULT_NOTES_FOLDERS): SourceKind | null {
  if (!path.toLowerCase().endsWith('.md')) return null;
  if (path.startsWith('cards/')) return 'cards';
  if (path.startsWith('lab/')) return 'lab';
  return notesFolderOf(path, notesFolders) === null ? null : 'note';
}

/** The folders to walk: the notes folders, cards and lab, none inside another (`.` alone covers all). */
export function foldersToWalk(notesFolders: readonly string[]): string[] {
  const all = [...new Set([...notesFolders.map(normalFolder), 'cards', 'lab'])];
  if (all.includes('.')) return ['.'];
  return all.filter((folder) => !all.some((other) => other !== folder && folder.startsWith(`${other}/`))).sort();
}

/** What a knowledge base with nothing to read says: where kb looked, and how to change it. */
export function noSourcesMessage(lookedIn: string): string {
  return `no notes or cards found: looked for .md files in ${lookedIn} (kb.json's notesFolders sets where notes are)`;
}

/** How a message names the folders looked in: `notes/, cards/` (cards/ left out when `withCards` is false). */
export function describeFolders(notesFolders: readonly string[], withCards = true): string {
  const folders = notesFolders.map(normalFolder);
  if (folders.includes('.')) return './ (the whole folder)';
  return [...new Set([...folders, ...(withCards ? ['cards'] : [])])].map((folder) => `${folder}/`).join(', ');
}
