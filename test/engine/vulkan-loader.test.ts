// `--backend auto` asks Dawn for an adapter only where the Vulkan loader can be found: without
// it Dawn's start-up warning (C++ source locations) reached the user before the CPU fallback.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingVulkanDriver, vulkanLoaderPresent } from '../../src/engine/backend/webgpu/vulkan-loader.ts';
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

// The loader present but no driver (VK_ICD_FILENAMES naming nothing, or no ICD manifest
// installed): Dawn printed its vkCreateInstance warning, with a C++ source location, before
// kb's line, and --backend auto printed it before falling back. kb now tells it first.
describe.runIf(process.platform === 'linux')('missingVulkanDriver', () => {
  it('finds a manifest in the XDG and system folders, and names an override that holds none', () => {
    const dir = tempDir();
    const system = join(dir, 'usr/share');
    const none = { HOME: join(dir, 'home') };
    expect(missingVulkanDriver(none, [system])).toBe('No Vulkan driver is installed (no manifest in any vulkan/icd.d folder)');
    mkdirSync(join(system, 'vulkan/icd.d'), { recursive: true });
    expect(missingVulkanDriver(none, [system])).not.toBeNull(); // an empty folder holds no driver
    writeFileSync(join(system, 'vulkan/icd.d/lvp_icd.json'), '{}');
    expect(missingVulkanDriver(none, [system])).toBeNull();
    // VK_ICD_FILENAMES (or VK_DRIVER_FILES, which wins) replaces the search.
    expect(missingVulkanDriver({ ...none, VK_ICD_FILENAMES: '/nonexistent/x.json' }, [system])).toBe(
      `VK_ICD_FILENAMES=/nonexistent/x.json names no Vulkan driver manifest (a driver's .json file, or a folder of them): unset it to use the drivers in ${join(system, 'vulkan/icd.d')}`,
    );
    expect(missingVulkanDriver({ ...none, VK_DRIVER_FILES: join(system, 'vulkan/icd.d/lvp_icd.json'), VK_ICD_FILENAMES: '/nonexistent' }, [system])).toBeNull();
    expect(missingVulkanDriver({ ...none, VK_DRIVER_FILES: join(dir, 'nothing') }, [join(dir, 'empty')])).toMatch(/^VK_DRIVER_FILES=\S+ names no Vulkan driver manifest .*, and none is installed$/);
    // A driver added on top, or one in the user's own data folder.
    expect(missingVulkanDriver({ ...none, VK_ICD_FILENAMES: '/nonexistent', VK_ADD_DRIVER_FILES: join(system, 'vulkan/icd.d') }, [system])).toBeNull();
    const data = join(dir, 'data');
    mkdirSync(join(data, 'vulkan/icd.d'), { recursive: true });
    writeFileSync(join(data, 'vulkan/icd.d/nvidia_icd.json'), '{}');
    expect(missingVulkanDriver({ ...none, XDG_DATA_HOME: data }, [join(dir, 'empty')])).toBeNull();
  });
});
