// Which knowledge base a command works on, and where its database lives.
//   1. --kb DIR          2. $KB_DIR          3. the nearest folder up from the cwd holding kb.json
//   4. the bundled knowledge base (the notes/, cards/, lab/ shipped next to package.json),
//      read-only, with its database in the user's data folder so kb never dirties the
//      project's tree or an installed package.
// A personal knowledge base keeps its database in <kb>/.kb/kb.db (git-ignored by a
// .gitignore inside .kb/); $KB_DB overrides the database path for any knowledge base.
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFileName } from './config.ts';
import { userConfigDir, userDataDir } from '../model/user-dirs.ts';
import { isDirectory } from '../model/is-directory.ts';

export type KbSource = 'flag' | 'env' | 'config' | 'bundled';

export interface KbLocation {
  /** Absolute path of the knowledge-base folder. */
  root: string;
  /** The knowledge base shipped with kb: read-only, database in the user's data folder. */
  bundled: boolean;
  source: KbSource;
  /** The kb.json that configures it (it may not exist: then the defaults apply). */
  configPath: string;
  dbPath: string;
}

export class LocationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocationError';
  }
}

export const contentFolders = ['notes', 'cards', 'lab'] as const;
export const stateFolderName = '.kb';

/** The folder holding kb's package.json: its notes/, cards/ and lab/ are the bundled knowledge base. */
export function bundledRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '../..');
}

/**
 * Where a knowledge base's labs come from, in order: its own lab/ folder, then kb's bundled
 * labs. A vault adopted with kb init has no lab/ of its own and still runs every lab kb
 * ships; one made by kb init keeps its own (editable) copies in front.
 */
export function labRoots(root: string): string[] {
  return isBundledRoot(root) ? [root] : [root, bundledRoot()];
}

/** Whether `dir` is the bundled knowledge base (through any link to it). */
export function isBundledRoot(dir: string): boolean {
  return canonical(dir) === canonical(bundledRoot());
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** A folder is a knowledge base when it has kb.json or any of notes/, cards/, lab/ (a vault with only notes/ counts). */
export function looksLikeKnowledgeBase(dir: string): boolean {
  return existsSync(join(dir, configFileName)) || contentFolders.some((name) => isDirectory(join(dir, name)));
}

export function isObsidianVault(dir: string): boolean {
  return isDirectory(join(dir, '.obsidian'));
}

/** An Obsidian vault or a folder of Markdown files: `kb init` adopts it. */
function looksLikeVault(dir: string): boolean {
  if (isObsidianVault(dir)) return true;
  try {
    return readdirSync(dir, { withFileTypes: true }).some((entry) => entry.isFile() && /\.md$/i.test(entry.name));
  } catch {
    return false;
  }
}

function explicitRoot(dir: string, how: string): string {
  const root = resolve(dir);
  if (!isDirectory(root)) throw new LocationError(`${how}: ${dir} is not a folder`);
  if (!looksLikeKnowledgeBase(root) && canonical(root) !== canonical(bundledRoot())) {
    if (looksLikeVault(root)) {
      throw new LocationError(`${how}: ${dir} holds notes but is not a knowledge base yet (no ${configFileName}); adopt it as it is with: kb init ${dir}`);
    }
    throw new LocationError(`${how}: ${dir} is not a knowledge base (no notes/, cards/, lab/ or ${configFileName}); create one with: kb init ${dir}`);
  }
  return root;
}

/** The nearest folder at or above `cwd` that holds kb.json, or null. */
export function findConfigUpwards(cwd: string): string | null {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, configFileName))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

export interface LocateOptions {
  kb?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export function locateKnowledgeBase(options: LocateOptions = {}): KbLocation {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  let root: string;
  let source: KbSource;
  if (options.kb) {
    root = explicitRoot(resolve(cwd, options.kb), '--kb');
    source = 'flag';
  } else if (env.KB_DIR) {
    root = explicitRoot(resolve(cwd, env.KB_DIR), 'KB_DIR');
    source = 'env';
  } else {
    const found = findConfigUpwards(cwd);
    root = found ?? bundledRoot();
    source = found ? 'config' : 'bundled';
  }
  // Pointing --kb at the project itself still means the bundled knowledge base: a clone
  // must never get a .kb/ folder or ids written by an ordinary scan.
  const bundled = isBundledRoot(root);
  const configPath = bundled ? join(userConfigDir(), configFileName) : join(root, configFileName);
  const dbPath = env.KB_DB ? resolve(cwd, env.KB_DB) : bundled ? join(userDataDir(), 'bundled.db') : join(root, stateFolderName, 'kb.db');
  return { root, bundled, source, configPath, dbPath };
}
