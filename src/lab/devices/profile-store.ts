// Where calibrated profiles live: <user data folder>/devices/<name>.json, one file each,
// written atomically so an interrupted save never leaves half a profile behind.
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeFolders } from '../../model/make-folders.ts';
import { userDataDir } from '../../model/user-dirs.ts';
import { type DeviceProfile, profileSchema } from './device-profile.ts';

export function profilesDir(): string {
  return join(userDataDir(), 'devices');
}

export class ProfileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProfileError';
  }
}

/** Reads and checks one profile file; a bad file is an error naming it and saying what is wrong. */
export function readProfile(path: string): DeviceProfile {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ProfileError(`${path}: not a readable JSON device profile (${(error as Error).message})`);
  }
  const parsed = profileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ProfileError(`${path}: not a valid device profile: ${issue.path.join('.') || '(top)'}: ${issue.message}`);
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
