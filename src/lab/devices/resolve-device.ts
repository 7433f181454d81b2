// `--set device=NAME` for the sim: a built-in GPU (the engine knows it by name), a profile
// published with kb, or one calibrated on this machine. Resolved before a run starts, so an
// unknown name or a profile measured on another model is refused before anything runs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { namedDevices, type DeviceSpec } from '../../engine/index.ts';
import { SettingError } from '../lab-settings.ts';
import { type DeviceProfile, profileDevice } from './device-profile.ts';
import { listStoredProfiles, profilesDir, readProfile } from './profile-store.ts';
import { publishedProfiles } from './published-profiles.ts';

export interface ResolvedDevice {
  /** A whole device for the engine, or undefined for a built-in it knows by name. */
  spec: DeviceSpec | undefined;
  profile: DeviceProfile | null;
}

/** Published first (they cannot be shadowed), then the user's calibrated profiles. */
export function findProfile(name: string): DeviceProfile | null {
  const published = publishedProfiles().find((p) => p.name === name);
  if (published) return published;
  const path = join(profilesDir(), `${name}.json`);
  return existsSync(path) ? readProfile(path) : null;
}

/** The GPUs the engine knows by name (its this-cpu takes figures a lab cannot give: bench/ only). */
const builtInDevices = (): string[] => Object.keys(namedDevices);

export function resolveSimDevice(name: string, model: string): ResolvedDevice {
  if (builtInDevices().includes(name)) return { spec: undefined, profile: null };
  const profile = findProfile(name);
  if (!profile) {
    const known = [...builtInDevices(), ...publishedProfiles().map((p) => p.name), ...listStoredProfiles().flatMap((p) => (p.profile ? [p.name] : []))];
    throw new SettingError(`device "${name}": no such device or profile; known: ${known.join(', ')} (see kb lab devices, or make one with kb lab calibrate)`);
  }
  if (profile.model !== model) {
    throw new SettingError(
      `device "${name}" was fitted on ${profile.model}, and its costs are per step of that model; this run uses ${model}: set model=${profile.model}, or calibrate one for ${model} (kb lab calibrate --model ${model})`,
    );
  }
  return { spec: profileDevice(profile), profile };
}
