// Writing one key of kb.json (kb optimize's fitted weights), keeping the others as they
// are; atomic, and refused when the file changed since it was read, or was made read-only.
import { readFileSync, statSync } from 'node:fs';
import { writeFileAtomic } from './atomic-write.ts';
import { ConfigError, configJson, parseConfig } from './config.ts';
import { isWriteProtected, WRITE_PROTECTED } from './writeback.ts';

/**
 * A kb.json made read-only (chmod a-w) is one its owner protects (settings pinned, say), as a
 * note so made: the atomic rename would replace it all the same, so kb leaves it as it is.
 */
export function isConfigWriteProtected(configPath: string): boolean {
  try {
    return isWriteProtected(statSync(configPath));
  } catch {
    return false; // none yet: writing makes it
  }
}

export function writeConfigKey(root: string, configPath: string, key: string, value: unknown): void {
  if (isConfigWriteProtected(configPath)) throw new ConfigError(`${configPath}: ${WRITE_PROTECTED}; not written`, 'read-only');
  let before: string | undefined;
  try {
    before = readFileSync(configPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Read as kb reads it: an edit made while kb optimize fitted may have left it broken (JSON.parse's
  // own SyntaxError read as a bug in kb), or not an object at all (then parseConfig says why).
  const data = before === undefined ? {} : configJson(before, configPath);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) parseConfig(data, configPath);
  const next = { ...(data as Record<string, unknown>), [key]: value };
  // What is written must load: a value the schema refuses never reaches the file.
  parseConfig(next, configPath);
  writeFileAtomic(root, configPath, `${JSON.stringify(next, null, 2)}\n`, before);
}
