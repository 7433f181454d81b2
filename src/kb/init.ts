// kb init DIR: a new personal knowledge base, as a copy of the bundled one or empty.
import { cpSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
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
  if (existsSync(root)) {
    if (!statSync(root).isDirectory()) throw new InitError(`${dir} exists and is not a folder`);
    if (readdirSync(root).length > 0) throw new InitError(`${dir} is not empty; kb init makes a new knowledge base in an empty or new folder`);
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
  const configPath = join(root, configFileName);
  writeFileSync(configPath, defaultConfigText());
  writeFileSync(join(root, '.gitignore'), `# kb's database and other state\n${stateFolderName}/\n`);
  return { root, copied, configPath };
}
