// Whether Linux can load the Vulkan loader (libvulkan.so.1) that Dawn needs. Without it Dawn
// prints a warning with C++ source locations to stderr when it starts, which a user of
// `--backend auto` on a machine with no GPU stack should not see: auto then takes the CPU
// backend quietly. The dynamic linker finds a library through LD_LIBRARY_PATH or its cache
// (/etc/ld.so.cache, which holds each library's name as text). Where there is no cache
// (NixOS, musl), nothing can be told and Dawn is asked as before.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const LOADER = 'libvulkan.so.1';

/** false only when the loader is surely missing; true off Linux or where it cannot be told. */
export function vulkanLoaderPresent(env: NodeJS.ProcessEnv = process.env, cachePath = '/etc/ld.so.cache'): boolean {
  if (process.platform !== 'linux') return true;
  const dirs = (env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean);
  if (dirs.some((dir) => existsSync(join(dir, LOADER)))) return true;
  let cache: Buffer;
  try {
    cache = readFileSync(cachePath);
  } catch {
    return true;
  }
  return cache.includes(LOADER);
}
