// Whether a path is a folder: asked by the knowledge base's location (kb/location.ts) and by
// the SQLite fault wording (store/sqlite-fault.ts, a folder where the database should be).
// Here, below both, so the store need not import kb/ nor keep a copy of its own.
import { statSync } from 'node:fs';

/** Whether `path` is a folder (through links); false when it is missing or cannot be read. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
