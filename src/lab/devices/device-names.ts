// The device names kb ships (the engine's datasheet GPUs, the published profiles), which a
// calibrated profile may not take. They compare without case: `--name h100` was accepted
// beside the built-in H100, and `--set device=h100` then ran a cpu profile under that name.
import { deviceNames } from '../../engine/index.ts';
import { publishedProfiles } from './published-profiles.ts';

export function shippedDeviceNames(): string[] {
  return [...deviceNames(), ...publishedProfiles().map((p) => p.name)];
}

/** The name kb ships that `name` is, case aside (H100 for "h100"), or null. */
export function shippedNameLike(name: string): string | null {
  const lower = name.toLowerCase();
  return shippedDeviceNames().find((shipped) => shipped.toLowerCase() === lower) ?? null;
}

/** Why `name` is no name for a profile of one's own, or null when it is free. */
export function shippedNameClash(name: string): string | null {
  const shipped = shippedNameLike(name);
  if (shipped === null) return null;
  return shipped === name ? `"${name}" is a device kb ships` : `"${name}" is ${shipped}, a device kb ships, but for case (device names compare without case)`;
}
