// kb init DIR: a new personal knowledge base, as a copy of the bundled one or empty; or an
// existing folder of notes adopted as it is (adopt.ts).
import { cpSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { adoptFolder, holdsMarkdown, type Adoption } from './adopt.ts';
import { TEMP_FILE_GLOB } from './atomic-write.ts';
import { configFileName, defaultConfigText } from './config.ts';
import { bundledRoot, contentFolders, stateFolderName } from './location.ts';

export class InitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InitError';
  }
}

export interface InitResult {
  root: string;
  /** Markdown files copied from the bundled knowledge base (0 with --empty). */
  copied: number;
  configPath: string;
  /** Set when DIR already held notes: what kb found there (nothing was copied). */
  adopted?: Adoption;
  /** Set when DIR already had a kb.json: nothing was changed. */
  existing?: boolean;
}

function countMarkdown(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.md')) n++;
  }
  return n;
}

export function initKnowledgeBase(dir: string, options: { empty?: boolean; source?: string } = {}): InitResult {
  const root = resolve(dir);
  const configPath = join(root, configFileName);
  if (existsSync(root)) {
    if (!statSync(root).isDirectory()) throw new InitError(`${dir} exists and is not a folder`);
    if (existsSync(configPath)) return { root, copied: 0, configPath, existing: true };
    if (readdirSync(root).length > 0) {
      if (!holdsMarkdown(root)) {
        throw new InitError(`${dir} is not empty and holds no Markdown notes; kb init makes a new knowledge base in an empty or new folder, or adopts a folder of notes`);
      }
      return { root, copied: 0, configPath, adopted: adoptFolder(root) };
    }
  }
  const source = options.source ?? bundledRoot();
  mkdirSync(root, { recursive: true });
  let copied = 0;
  for (const folder of contentFolders) {
    const from = join(source, folder);
    const to = join(root, folder);
    if (!options.empty && existsSync(from)) {
      // Copy only what is content: dotfiles (editor and tool state) stay behind.
      cpSync(from, to, { recursive: true, filter: (path) => !basename(path).startsWith('.') });
      copied += countMarkdown(to);
    } else {
      mkdirSync(to, { recursive: true });
    }
  }
  writeFileSync(configPath, defaultConfigText());
  writeFileSync(join(root, '.gitignore'), `# kb's database and other state\n${stateFolderName}/\n${TEMP_FILE_GLOB}\n`);
  return { root, copied, configPath };
}
