// Where calibrated profiles live: <user data folder>/devices/<name>.json, one file each,
// written atomically so an interrupted save never leaves half a profile behind.
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { NAMED_CONFIGS } from '../../engine/index.ts';
import { makeFolders } from '../../model/make-folders.ts';
import { userDataDir } from '../../model/user-dirs.ts';
import { deviceNamePattern } from '../lab-settings.ts';
import { type DeviceProfile, profileSchema } from './device-profile.ts';
import { shippedNameClash } from './device-names.ts';

export function profilesDir(): string {
  return join(userDataDir(), 'devices');
}

export class ProfileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProfileError';
  }
}

/**
 * What to do about a profile file kb cannot read: make it again under the same name, or remove
 * it. The model is the file's own when it says one, else the run's that asked for it.
 */
function remedy(name: string, model: string | null, backend: string | null): string {
  const flags = [`--name ${name}`, ...(backend !== null && backend !== 'cpu' ? [`--backend ${backend}`] : []), `--model ${model ?? 'MODEL'}`];
  return `calibrate it again (kb lab calibrate ${flags.join(' ')}) or remove the file`;
}

/** `data.key` when data is an object and that is a string, else null (what a broken file still says). */
function stringField(data: unknown, ...keys: string[]): string | null {
  let value: unknown = data;
  for (const key of keys) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : null;
}

/**
 * Reads and checks one profile file; a bad file is an error naming it, saying what is wrong and
 * what to do. The profile's name is the file's (devices/<name>.json), whatever the file says
 * inside: it is how the user addresses it (--set device=NAME, kb lab devices), and a copy
 * renamed by hand ran as "simulated cpu-gpt2-tiny" when asked for as mine. `model`: the model
 * of the run asking for it, offered in the remedy when the file names none.
 */
export function readProfile(path: string, model: string | null = null): DeviceProfile {
  const name = basename(path, '.json');
  if (!deviceNamePattern.test(name)) {
    throw new ProfileError(`${path}: "${name}" is no device name (letters, digits, '.', '_' and '-', at most 64, starting with a letter or digit): rename the file`);
  }
  const clash = shippedNameClash(name);
  if (clash !== null) throw new ProfileError(`${path}: ${clash}: rename the file`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    // JSON.parse quotes the text it stopped in, newlines and all: one line, as every kb error is.
    throw new ProfileError(`${path}: not a readable JSON device profile (${(error as Error).message.replace(/\s+/g, ' ')}); ${remedy(name, model, null)}`);
  }
  const parsed = profileSchema.safeParse(data !== null && typeof data === 'object' && !Array.isArray(data) ? { ...data, name } : data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // What the file still says of its model and backend, where kb knows them (a typo in either may be what broke it).
    const ownModel = stringField(data, 'model');
    const ownBackend = stringField(data, 'source', 'backend');
    const again = remedy(name, ownModel !== null && ownModel in NAMED_CONFIGS ? ownModel : model, ownBackend === 'webgpu' ? ownBackend : null);
    throw new ProfileError(`${path}: not a valid device profile: ${issue.path.join('.') || '(top)'}: ${issue.message}; ${again}`);
  }
  return parsed.data;
}

export type StoredProfile = { name: string; path: string; profile: DeviceProfile; error: null } | { name: string; path: string; profile: null; error: string };

/** Every profile file in the folder, broken ones included (with their error). */
export function listStoredProfiles(dir = profilesDir()): StoredProfile[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  } catch {
    return [];
  }
  return files.map((file) => {
    const path = join(dir, file);
    const name = file.slice(0, -'.json'.length);
    try {
      return { name, path, profile: readProfile(path), error: null };
    } catch (error) {
      return { name, path, profile: null, error: (error as Error).message };
    }
  });
}

export function saveProfile(profile: DeviceProfile, dir = profilesDir()): string {
  makeFolders(dir);
  const path = join(dir, `${profile.name}.json`);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(profile, null, 2)}\n`);
  renameSync(temp, path);
  return path;
}
