// The per-kernel profile as a text table, shared by `kb generate --profile`, the bench report
// and the lab report so all three read the same way.
import type { KernelProfile } from './backend/webgpu/profile.ts';

/** A header line saying how the times were taken, then one row per kernel, largest total first. */
export function kernelProfileLines(profile: KernelProfile): string[] {
  const how = profile.source === 'gpu-timestamps' ? 'GPU timestamps' : 'CPU-side timing, each kernel submitted alone (includes the submit round trip)';
  const header = `profile: ${profile.totalMs.toFixed(2)} ms in kernels over ${profile.steps} steps (${how})`;
  const width = Math.max('kernel'.length, ...profile.kernels.map((k) => k.kernel.length));
  const head = `  ${'kernel'.padEnd(width)}  ${'calls'.padStart(6)}  ${'total ms'.padStart(10)}  ${'mean µs'.padStart(9)}  ${'share'.padStart(6)}`;
  const rows = profile.kernels.map((k) => {
    const share = profile.totalMs > 0 ? (100 * k.totalMs) / profile.totalMs : 0;
    return `  ${k.kernel.padEnd(width)}  ${String(k.calls).padStart(6)}  ${k.totalMs.toFixed(3).padStart(10)}  ${k.meanUs.toFixed(1).padStart(9)}  ${share.toFixed(1).padStart(5)}%`;
  });
  return [header, head, ...rows];
}
