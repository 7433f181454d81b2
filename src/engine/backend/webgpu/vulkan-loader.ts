// Whether Linux can load the Vulkan loader (libvulkan.so.1) that Dawn needs. Without it Dawn
// prints a warning with C++ source locations to stderr when it starts, which a user of
// `--backend auto` on a machine with no GPU stack should not see: auto then takes the CPU
// backend quietly. The dynamic linker finds a library through LD_LIBRARY_PATH or its cache
// (/etc/ld.so.cache, which holds each library's name as text). Where there is no cache
// (NixOS, musl), nothing can be told and Dawn is asked as before.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/** The loader's folders when XDG_CONFIG_DIRS and XDG_DATA_DIRS are unset, and /etc (its SYSCONFDIR). */
const SYSTEM_FOLDERS = ['/etc/xdg', '/etc', '/usr/local/etc', '/usr/local/share', '/usr/share'];

/**
 * Why Vulkan surely has no driver, or null when it may have one. With the loader present but no
 * driver manifest (an ICD's JSON file) where it looks, or VK_DRIVER_FILES / VK_ICD_FILENAMES
 * naming none, Dawn printed "Warning: vkCreateInstance: Found no drivers!" and a C++ source
 * location before kb's own line, and `--backend auto` did so before falling back to the CPU.
 * Asked first, kb says why in one line and never starts Dawn. The folders are the loader's
 * (XDG config and data folders, /etc), with the defaults always added: errs towards "maybe".
 */
export function missingVulkanDriver(env: NodeJS.ProcessEnv = process.env, systemFolders: readonly string[] = SYSTEM_FOLDERS): string | null {
  return driverProblem(env, systemFolders)?.why ?? null;
}

/** Why there is surely no driver, and whether unsetting an override is the whole fix (drivers are installed). */
function driverProblem(env: NodeJS.ProcessEnv, systemFolders: readonly string[]): { why: string; unsetFixes: boolean } | null {
  if (process.platform !== 'linux') return null;
  const list = (value: string | undefined) => (value ?? '').split(':').filter(Boolean);
  if (list(env.VK_ADD_DRIVER_FILES).some(holdsManifest)) return null;
  const home = env.HOME;
  const folders = [
    env.XDG_CONFIG_HOME || (home ? join(home, '.config') : ''),
    ...list(env.XDG_CONFIG_DIRS),
    env.XDG_DATA_HOME || (home ? join(home, '.local/share') : ''),
    ...list(env.XDG_DATA_DIRS),
    ...systemFolders,
  ].filter(Boolean);
  const installed = folders.map((dir) => join(dir, 'vulkan/icd.d')).filter(holdsManifest);
  const override = env.VK_DRIVER_FILES ? 'VK_DRIVER_FILES' : env.VK_ICD_FILENAMES ? 'VK_ICD_FILENAMES' : null;
  if (override !== null) {
    if (list(env[override]).some(holdsManifest)) return null;
    const named = `${override}=${env[override]} names no Vulkan driver manifest (a driver's .json file, or a folder of them)`;
    return installed.length > 0
      ? { why: `${named}: unset it to use the drivers in ${installed.join(', ')}`, unsetFixes: true }
      : { why: `${named}, and none is installed`, unsetFixes: false };
  }
  return installed.length > 0 ? null : { why: 'No Vulkan driver is installed (no manifest in any vulkan/icd.d folder)', unsetFixes: false };
}

export const INSTALL_HELP =
  'Install a GPU driver with Vulkan, Metal or D3D12 support, ' +
  "or, on a machine without a GPU, Mesa's lavapipe (Debian/Ubuntu: mesa-vulkan-drivers 23 or newer; " +
  "on Debian 12 take it from bookworm-backports, the stock 22.3 lacks a Vulkan feature Dawn needs).";

/**
 * Without a Vulkan driver, the one line that says why (what to unset, or what to install);
 * null where one may be there. Asked before Dawn starts, which would print its own warning
 * first (with C++ source locations); `--backend auto` then falls back quietly. Here, apart
 * from device.ts, so that a caller can ask before it runs anything without loading Dawn
 * (`kb lab --compare webgpu` ran and stored the sim's run first, then failed).
 */
export function webgpuUnavailable(): string | null {
  const problem = driverProblem(process.env, SYSTEM_FOLDERS);
  if (problem === null) return null;
  // An override that names nothing, with drivers installed: unsetting it is the whole fix.
  return problem.unsetFixes ? `WebGPU found no adapter. ${problem.why}.` : `WebGPU found no adapter. ${problem.why}. ${INSTALL_HELP}`;
}

/** A file, or a folder holding a .json file: what the Vulkan loader takes as a driver manifest. */
function holdsManifest(path: string): boolean {
  try {
    const stat = statSync(path);
    if (stat.isFile()) return true;
    return stat.isDirectory() && readdirSync(path).some((name) => name.endsWith('.json'));
  } catch {
    return false;
  }
}
