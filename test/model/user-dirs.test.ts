// kb's user folders follow the XDG Base Directory spec, which says a relative XDG_* path is
// invalid and to be ignored. kb took XDG_DATA_HOME=relative/dir as it was, relative to the
// working directory: the bundled knowledge base's database (ratings included) was made anew
// in every folder kb ran from (found by running every command under a hostile environment).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { userConfigDir, userDataDir } from '../../src/model/user-dirs.ts';

describe.runIf(process.platform === 'linux')('user folders (XDG)', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('an absolute XDG_DATA_HOME / XDG_CONFIG_HOME is used', () => {
    vi.stubEnv('XDG_DATA_HOME', '/srv/data');
    vi.stubEnv('XDG_CONFIG_HOME', '/srv/config');
    expect(userDataDir()).toBe('/srv/data/kb');
    expect(userConfigDir()).toBe('/srv/config/kb');
  });

  it('a relative one is ignored, as the spec says: the default under the home folder, not a folder under the working directory', () => {
    vi.stubEnv('XDG_DATA_HOME', 'relative/data');
    vi.stubEnv('XDG_CONFIG_HOME', '.');
    expect(userDataDir()).toBe(join(homedir(), '.local', 'share', 'kb'));
    expect(userConfigDir()).toBe(join(homedir(), '.config', 'kb'));
  });
});
