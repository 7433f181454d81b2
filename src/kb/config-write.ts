// Writing one key of kb.json (kb optimize's fitted weights), keeping the others as they
// are; atomic, and refused when the file changed since it was read.
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from './atomic-write.ts';
import { parseConfig } from './config.ts';

export function writeConfigKey(root: string, configPath: string, key: string, value: unknown): void {
  let before: string | undefined;
  try {
    before = readFileSync(configPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const data = before === undefined ? {} : (JSON.parse(before.replace(/^\uFEFF/, '')) as Record<string, unknown>);
  const next = { ...data, [key]: value };
  // What is written must load: a value the schema refuses never reaches the file.
  parseConfig(next, configPath);
  writeFileAtomic(root, configPath, `${JSON.stringify(next, null, 2)}\n`, before);
}
