// The WebGPU tests run for real (lavapipe in CI). Without an adapter they skip on a developer's
// machine, but fail in CI: a CI image that lost its Vulkan driver must not pass silently.

import { findAdapter, noAdapterHelp } from '../../src/engine/backend/webgpu/device.ts';

const adapter = await findAdapter('any');

if (!adapter && process.env.CI) {
  throw new Error(`CI is set and ${noAdapterHelp}`);
}

/** For describe.skipIf: true only when there is no adapter outside CI. */
export const noAdapter = adapter === null;
