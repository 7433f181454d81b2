// `--backend auto` asks Dawn for an adapter only where the Vulkan loader can be found: without
// it Dawn's start-up warning (C++ source locations) reached the user before the CPU fallback.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vulkanLoaderPresent } from '../../src/engine/backend/webgpu/vulkan-loader.ts';
import { tempDir } from '../helpers/kb-cli.ts';

describe.runIf(process.platform === 'linux')('vulkanLoaderPresent', () => {
  it('finds the loader in the linker cache or on LD_LIBRARY_PATH, and says missing only when sure', () => {
    const dir = tempDir();
    const cache = join(dir, 'ld.so.cache');
    writeFileSync(cache, Buffer.concat([Buffer.from('glibc-ld.so.cache1.1\0libm.so.6\0/usr/lib/libm.so.6\0'), Buffer.alloc(8)]));
    expect(vulkanLoaderPresent({}, cache)).toBe(false);
    writeFileSync(cache, 'glibc-ld.so.cache1.1\0libvulkan.so.1\0/usr/lib/x86_64-linux-gnu/libvulkan.so.1\0');
    expect(vulkanLoaderPresent({}, cache)).toBe(true);
    const lib = join(dir, 'lib');
    mkdirSync(lib);
    writeFileSync(join(lib, 'libvulkan.so.1'), '');
    expect(vulkanLoaderPresent({ LD_LIBRARY_PATH: `/nowhere:${lib}` }, join(dir, 'missing-cache'))).toBe(true);
    // No cache to read (NixOS, musl): it cannot be told, so Dawn is asked.
    expect(vulkanLoaderPresent({}, join(dir, 'missing-cache'))).toBe(true);
  });
});
