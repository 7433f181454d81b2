// Assembles kernels.wat (the source of the SIMD kernels) into WebAssembly with wabt. The binary
// is never committed: kb assembles it on first use and keeps it in the user's cache folder,
// keyed by a hash of the source, so an edited .wat is picked up at once.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WAT_PATH = fileURLToPath(new URL('./kernels.wat', import.meta.url));

export async function assembleKernels(): Promise<Uint8Array> {
  const { default: initWabt } = await import('wabt');
  const wabt = await initWabt();
  const module = wabt.parseWat(WAT_PATH, readFileSync(WAT_PATH, 'utf8'), { simd: true, threads: true, relaxed_simd: true });
  try {
    return module.toBinary({}).buffer;
  } finally {
    module.destroy();
  }
}

function cacheRoots(): string[] {
  const xdg = process.env.XDG_CACHE_HOME;
  return [xdg && xdg.startsWith('/') ? xdg : join(homedir(), '.cache'), tmpdir()].map((root) => join(root, 'kb'));
}

function cacheName(): string {
  const hash = createHash('sha256').update(readFileSync(WAT_PATH)).digest('hex').slice(0, 16);
  return `kernels-${hash}.wasm`;
}

/** The assembled kernels of the current source, if some earlier run has cached them. */
export function cachedKernelsPath(): string | null {
  const name = cacheName();
  for (const root of cacheRoots()) if (existsSync(join(root, name))) return join(root, name);
  return null;
}

/** Makes sure the kernels are assembled and cached; false when nowhere could hold them. */
export async function prepareKernels(): Promise<boolean> {
  if (cachedKernelsPath()) return true;
  const bytes = await assembleKernels();
  for (const root of cacheRoots()) {
    const path = join(root, cacheName());
    try {
      mkdirSync(dirname(path), { recursive: true });
      // Written aside and renamed: two processes assembling at once never see half a file.
      const temp = `${path}.${process.pid}.tmp`;
      writeFileSync(temp, bytes);
      renameSync(temp, path);
      return true;
    } catch {
      // A read-only cache folder: try the next one.
    }
  }
  return false;
}
