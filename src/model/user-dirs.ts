// Where kb keeps one user's state outside any knowledge base (XDG folders, by env-paths): the
// bundled knowledge base's database, the user config, measured device profiles.
import envPaths from 'env-paths';

export function userDataDir(): string {
  return envPaths('kb', { suffix: '' }).data;
}

export function userConfigDir(): string {
  return envPaths('kb', { suffix: '' }).config;
}
