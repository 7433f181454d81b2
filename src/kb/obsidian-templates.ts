// An Obsidian vault's templates folder holds note skeletons (`# {{title}}`, `created: {{date}}`),
// not notes: read as cards they were questions named "{{title}}", kb wrote an id into them,
// and every note Obsidian then made from one carried that id (two cards, one id: both blocked).
// The folder is the one the core Templates plugin or the Templater plugin is set to use.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where each plugin keeps its setting, and the key that names the folder. */
const SETTINGS: ReadonlyArray<[file: string, key: string]> = [
  ['.obsidian/templates.json', 'folder'],
  ['.obsidian/plugins/templater-obsidian/data.json', 'templates_folder'],
];

/** The vault's template folders as knowledge-base paths (`Templates`, `meta/templates`); none outside an Obsidian vault. */
export function obsidianTemplateFolders(root: string): string[] {
  const folders: string[] = [];
  for (const [file, key] of SETTINGS) {
    let settings: unknown;
    try {
      settings = JSON.parse(readFileSync(join(root, file), 'utf8'));
    } catch {
      continue; // no such plugin, or settings kb cannot read: nothing to leave out
    }
    const folder = (settings as Record<string, unknown> | null)?.[key];
    if (typeof folder !== 'string') continue;
    const path = folder.replace(/\\/g, '/').replace(/^\/+|\/+$/g, '');
    if (path !== '' && !path.split('/').includes('..')) folders.push(path);
  }
  return folders;
}
