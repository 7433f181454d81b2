// `mkdir -p` for the folders kb makes outside a knowledge base's own tree (the database's
// folder: KB_DB or XDG_DATA_HOME; device profiles). Node's mkdirSync(path, { recursive: true })
// never returns where mkdir says ENOENT under a folder that exists (KB_DB=/proc/x/kb.db: /proc
// refuses new folders so): it makes the parent, sees it there, and tries the child again,
// forever. kb hung at 100% CPU. Here each folder is made once, and its error is thrown.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { isDirectory } from './is-directory.ts';

/** Makes `path` and any missing folders above it; an existing folder is fine. Throws mkdir's error (code, path) otherwise. */
export function makeFolders(path: string): void {
  const missing: string[] = [];
  for (let dir = path; !existsSync(dir); dir = dirname(dir)) {
    missing.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (error) {
      // Made meanwhile by another process (two kb starting at once): that is the folder asked
      // for. Anything else standing there (a link to nowhere) is mkdir's error to say.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !isDirectory(dir)) throw error;
    }
  }
}
