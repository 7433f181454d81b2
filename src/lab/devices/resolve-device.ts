// `--set device=NAME` for the sim: a built-in GPU (the engine knows it by name), a profile
// published with kb, or one calibrated on this machine. Resolved before a run starts, so an
// unknown name or a profile measured on another model is refused before anything runs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { namedDevices, type DeviceSpec } from '../../engine/index.ts';
import { SettingError } from '../lab-settings.ts';
import { nearestTypo } from '../typo.ts';
import { type DeviceProfile, profileDevice } from './device-profile.ts';
import { listStoredProfiles, profilesDir, readProfile } from './profile-store.ts';
import { publishedProfiles } from './published-profiles.ts';

export interface ResolvedDevice {
  /** A whole device for the engine, or undefined for a built-in it knows by name. */
  spec: DeviceSpec | undefined;
  profile: DeviceProfile | null;
}

/** The GPUs the engine knows by name (its this-cpu takes figures a lab cannot give: bench/ only). */
const builtInDevices = (): string[] => Object.keys(namedDevices);

/**
 * Published first (they cannot be shadowed), then the user's calibrated profiles. `model`: the
 * run's, offered in the error when the file is broken and does not say its own.
 */
export function findProfile(name: string, model: string | null = null): DeviceProfile | null {
  // A built-in GPU is no profile, whatever file a hand put beside them (the run took the built-in).
  if (builtInDevices().includes(name)) return null;
  const published = publishedProfiles().find((p) => p.name === name);
  if (published) return published;
  const path = join(profilesDir(), `${name}.json`);
  return existsSync(path) ? readProfile(path, model) : null;
}

export function resolveSimDevice(name: string, model: string): ResolvedDevice {
  if (builtInDevices().includes(name)) return { spec: undefined, profile: null };
  const profile = findProfile(name, model);
  if (!profile) {
    const known = [...builtInDevices(), ...publishedProfiles().map((p) => p.name), ...listStoredProfiles().flatMap((p) => (p.profile ? [p.name] : []))];
    // Names are matched as typed (a profile's is its file's); "h100" for H100 is a typo away.
    const near = nearestTypo(name, known);
    throw new SettingError(`device "${name}": no such device or profile;${near !== null ? ` did you mean ${near}?` : ''} known: ${known.join(', ')} (see kb lab devices, or make one with kb lab calibrate)`);
  }
  if (profile.model !== model) {
    throw new SettingError(
      `device "${name}" was fitted on ${profile.model}, and its costs are per step of that model; this run uses ${model}: set model=${profile.model}, or calibrate one for ${model} (kb lab calibrate --model ${model})`,
    );
  }
  return { spec: profileDevice(profile), profile };
}
