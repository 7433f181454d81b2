// Where kb keeps one user's state outside any knowledge base (XDG folders, by env-paths): the
// bundled knowledge base's database, the user config, measured device profiles.
import envPaths from 'env-paths';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export function userDataDir(): string {
  return absoluteOr(envPaths('kb', { suffix: '' }).data, ['.local', 'share']);
}

export function userConfigDir(): string {
  return absoluteOr(envPaths('kb', { suffix: '' }).config, ['.config']);
}

/**
 * The XDG Base Directory spec: a relative XDG_DATA_HOME or XDG_CONFIG_HOME is invalid and is
 * ignored. env-paths took it as it was, relative to the working directory, so the bundled
 * knowledge base's database (its ratings) was made anew in each folder kb ran from. Only such
 * a variable makes env-paths' folder relative (the home folder is absolute): its default then.
 */
function absoluteOr(dir: string, defaultUnderHome: string[]): string {
  return isAbsolute(dir) ? dir : join(homedir(), ...defaultUnderHome, 'kb');
}
