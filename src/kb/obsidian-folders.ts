// The folders of an Obsidian vault that hold no questions, as the vault's own plugins name them.
// Templates are note skeletons (`# {{title}}`, `created: {{date}}`): read as cards they were
// questions named "{{title}}", kb wrote an id into them, and every note Obsidian then made from
// one carried that id (two cards, one id: both blocked). Daily (and periodic) notes are a
// journal: each became a new card named by its date, first in the queue (found as a user).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where each plugin keeps its setting, and the keys (dotted: nested) that name its folders. */
const SETTINGS: ReadonlyArray<[file: string, keys: readonly string[]]> = [
  ['.obsidian/templates.json', ['folder']],
  ['.obsidian/plugins/templater-obsidian/data.json', ['templates_folder']],
  ['.obsidian/daily-notes.json', ['folder']],
  ['.obsidian/plugins/periodic-notes/data.json', ['daily.folder', 'weekly.folder', 'monthly.folder', 'quarterly.folder', 'yearly.folder']],
];

/** The value at a dotted key (`daily.folder`), or undefined. */
function valueAt(settings: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((value, part) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined), settings);
}

/** The vault's template and journal folders as knowledge-base paths (`Templates`, `Daily`); none outside an Obsidian vault. */
export function obsidianSkippedFolders(root: string): string[] {
  const folders: string[] = [];
  for (const [file, keys] of SETTINGS) {
    let settings: unknown;
    try {
      settings = JSON.parse(readFileSync(join(root, file), 'utf8'));
    } catch {
      continue; // no such plugin, or settings kb cannot read: nothing to leave out
    }
    for (const key of keys) {
      const folder = valueAt(settings, key);
      if (typeof folder !== 'string') continue;
      const path = folder.replace(/\\/g, '/').replace(/^\/+|\/+$/g, '');
      if (path !== '' && !path.split('/').includes('..')) folders.push(path);
    }
  }
  return folders;
}
