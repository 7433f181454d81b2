// Profiles fitted to tables other people published, shipped with kb. They describe a machine
// and a serving loop nobody here measured, so each says where its numbers come from and that
// they were fitted to that table, not predicted from first principles.
import type { DeviceProfile } from './device-profile.ts';

export function publishedProfiles(): DeviceProfile[] {
  return [];
}
