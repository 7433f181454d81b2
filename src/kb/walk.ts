// Finds the Markdown files of a knowledge base: its notes folders (notes/ unless kb.json says
// otherwise), cards/ and lab/, any of which may be missing.
import { readdirSync, statSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { DEFAULT_NOTES_FOLDERS, foldersToWalk } from './note-folders.ts';
import { obsidianSkippedFolders } from './obsidian-folders.ts';
import type { Diagnostic, KbPath } from '../model/knowledge-base.ts';

export interface KnowledgeFileEntry {
  path: KbPath;
  abs: string;
  size: number;
  mtimeMs: number;
}

export interface WalkResult {
  files: KnowledgeFileEntry[];
  diagnostics: Diagnostic[];
}

/** Folders never worth reading: tool state (.kb, .git, .obsidian), editor caches, installed packages. */
function isSkippedFolder(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

function isMarkdown(name: string): boolean {
  const lower = name.toLowerCase();
  // An Excalidraw drawing saved in an Obsidian vault is Markdown holding the drawing's data, not a note.
  return lower.endsWith('.md') && !name.startsWith('.') && !lower.endsWith('.excalidraw.md');
}

/**
 * Why the walk never reads files in `folder` (a knowledge-base path), or null when it does:
 * kb add asks, so it writes no note where no scan would ever find it.
 */
export function unwalkedFolder(root: string, folder: KbPath): string | null {
  const segments = folder.split('/');
  const skipped = new Set(obsidianSkippedFolders(root));
  for (let i = 1; i <= segments.length; i++) {
    const path = segments.slice(0, i).join('/');
    if (isSkippedFolder(segments[i - 1])) return `kb never reads ${path}/ (a hidden or installed-packages folder)`;
    if (skipped.has(path)) return `kb never reads ${path}/ (the vault's templates or daily notes folder, as its Obsidian settings name it)`;
  }
  return null;
}

/** A folder's or file's identity on disk, so a link back to it (a loop, a note met twice) is seen whatever its path. */
function diskKey(stats: Stats): string {
  return `${stats.dev}:${stats.ino}`;
}

export function walkKnowledgeBase(root: string, notesFolders: readonly string[] = DEFAULT_NOTES_FOLDERS): WalkResult {
  const files: KnowledgeFileEntry[] = [];
  const diagnostics: Diagnostic[] = [];
  const visitedDirs = new Set<string>();
  /** Linked folders wait until every real folder is read, so files keep their real paths. */
  const deferredLinks: Array<{ abs: string; path: KbPath; ancestors: Set<string>; stats: Stats }> = [];
  /**
   * Linked files wait too, until every folder is read: a link to a note the walk also meets at
   * its own path is that note again, not a second one. Read twice, the note's id stood in two
   * files, both cards were blocked as duplicates, and the advice to delete the copy's id line
   * would have deleted the note's own (found adopting a vault).
   */
  const deferredFiles: Array<KnowledgeFileEntry & { key: string }> = [];
  const fileAt = new Map<string, KbPath>();
  // An Obsidian vault's templates are skeletons, and its daily notes a journal: not questions.
  const skippedFolders = new Set(obsidianSkippedFolders(root));
  let rootKey: string | null = null;
  try {
    rootKey = diskKey(statSync(root));
  } catch {
    // a missing root simply has no files; the caller reports it
  }

  const enterDir = (abs: string, path: KbPath, stats: Stats, ancestors: Set<string>): void => {
    const key = diskKey(stats);
    if (ancestors.has(key)) {
      diagnostics.push({ severity: 'warning', file: path, message: 'symbolic link loops back to a folder that contains it; not followed' });
      return;
    }
    if (visitedDirs.has(key)) {
      diagnostics.push({ severity: 'warning', file: path, message: 'folder already read through another path (symbolic link); not read twice' });
      return;
    }
    visitedDirs.add(key);
    walkDir(abs, path, new Set([...ancestors, key]));
  };

  const walkDir = (abs: string, path: KbPath, ancestors: Set<string>): void => {
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch (error) {
      diagnostics.push({ severity: 'warning', file: path, message: `cannot read folder (${errorCode(error)}); skipped` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (isSkippedFolder(entry.name) && !entry.isFile()) continue;
      // Plain concatenation: `abs` is already normal, and path.join's normalising is a
      // measurable share of the warm scan every kb review starts with.
      const childAbs = `${abs}${sep}${entry.name}`;
      const childPath = path === '.' ? entry.name : `${path}/${entry.name}`;
      if (!entry.isDirectory() && !entry.isFile() && !entry.isSymbolicLink()) {
        // A named pipe, socket or device is never opened (reading a pipe would block the
        // scan); one named like a note is said, so the user knows why it is no card.
        if (isMarkdown(entry.name)) diagnostics.push(notRegularFile(childPath, entry));
        continue;
      }
      let stats: Stats;
      try {
        // statSync follows links: a link is treated as what it points to.
        stats = statSync(childAbs);
      } catch (error) {
        const what = entry.isSymbolicLink() ? 'broken symbolic link' : 'cannot stat';
        diagnostics.push({ severity: 'warning', file: childPath, message: `${what} (${errorCode(error)}); skipped` });
        continue;
      }
      if (stats.isDirectory()) {
        if (skippedFolders.has(childPath)) continue;
        if (entry.isSymbolicLink()) deferredLinks.push({ abs: childAbs, path: childPath, ancestors, stats });
        else enterDir(childAbs, childPath, stats, ancestors);
      } else if (isMarkdown(entry.name)) {
        // A link may lead to a pipe or device: said like one met directly, never opened.
        if (!stats.isFile()) diagnostics.push(notRegularFile(childPath, stats));
        else if (entry.isSymbolicLink()) deferredFiles.push({ path: childPath, abs: childAbs, size: stats.size, mtimeMs: stats.mtimeMs, key: diskKey(stats) });
        else {
          files.push({ path: childPath, abs: childAbs, size: stats.size, mtimeMs: stats.mtimeMs });
          fileAt.set(diskKey(stats), childPath);
        }
      }
    }
  };

  for (const folder of foldersToWalk(notesFolders)) {
    const abs = folder === '.' ? root : join(root, folder);
    let stats: Stats;
    try {
      stats = statSync(abs);
    } catch {
      continue; // a knowledge base may have any subset of the three folders
    }
    if (!stats.isDirectory()) {
      diagnostics.push({ severity: 'warning', file: folder, message: `${folder} is not a folder; skipped` });
      continue;
    }
    // The root itself is no loop when it is the folder walked (`.`).
    enterDir(abs, folder, stats, new Set(rootKey === null || folder === '.' ? [] : [rootKey]));
  }
  // Reading a linked folder may find more links: take them in order until none are left.
  for (let i = 0; i < deferredLinks.length; i++) {
    const link = deferredLinks[i];
    enterDir(link.abs, link.path, link.stats, link.ancestors);
  }
  for (const { key, ...link } of deferredFiles) {
    const other = fileAt.get(key);
    if (other !== undefined) {
      diagnostics.push({ severity: 'warning', file: link.path, message: `same file as ${other} (symbolic link); not read twice` });
      continue;
    }
    files.push(link);
    fileAt.set(key, link.path);
  }

  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  diagnostics.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { files, diagnostics };
}

/** The warning for a note-named entry that is no regular file, naming what it is. */
function notRegularFile(path: KbPath, kind: Pick<Stats, 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>): Diagnostic {
  const what = kind.isFIFO() ? 'named pipe' : kind.isSocket() ? 'socket' : kind.isCharacterDevice() || kind.isBlockDevice() ? 'device' : 'unknown kind';
  return { severity: 'warning', file: path, message: `not a regular file (${what}); skipped` };
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
