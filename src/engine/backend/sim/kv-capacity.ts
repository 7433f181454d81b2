// How much KV cache a device holds: its memory, less the weights, less what the runtime keeps
// back. A simulator that gets this wrong admits more sequences than the real engine could and
// finishes requests early, so every sim report prints it.
import type { ModelConfig } from '../../model/model-config.ts';
import { kvBytesPerTokenOn, weightCount } from './cost-model.ts';
import type { DeviceSpec } from './gpus.ts';
import type { PoolSize } from '../../engine-options.ts';

/** vLLM's default gpu_memory_utilization leaves this share of memory to activations and the runtime. */
export const DEFAULT_RESERVE_SHARE = 0.1;

export interface KvCapacity {
  memoryBytes: number;
  weightBytes: number;
  reserveBytes: number;
  /** What is left for K/V blocks. */
  budgetBytes: number;
  kvBytesPerToken: number;
}

export function kvCapacity(config: ModelConfig, device: DeviceSpec): KvCapacity {
  const weightBytes = device.weightBytes ?? weightCount(config) * device.dtypeBytes;
  const reserveBytes = device.reserveBytes ?? device.memoryBytes * DEFAULT_RESERVE_SHARE;
  return {
    memoryBytes: device.memoryBytes,
    weightBytes,
    reserveBytes,
    budgetBytes: device.memoryBytes - weightBytes - reserveBytes,
    kvBytesPerToken: kvBytesPerTokenOn(config, device),
  };
}

function size(bytes: number): string {
  const GiB = 1024 ** 3;
  return bytes >= GiB ? `${(bytes / GiB).toFixed(2)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

/**
 * The device's KV capacity and the pool the run has: "KV capacity: 40.00 GiB memory - 13.8 MiB
 * weights - 4.00 GiB reserve = 35.99 GiB -> 16384 blocks x 16 tokens". A pool the run set (kb
 * generate sizes one for its one request) is said as the run's, apart from what the device
 * could hold: "= 35.99 GiB -> 1 blocks" read as a wrong sum. A pool cut to what the running
 * sequences can use says so ("(capped: 256 sequences x 1024 tokens)"): else the blocks read as
 * all the budget holds.
 */
export function describeKvCapacity(capacity: KvCapacity, blocks: number, blockSize: number, setByRun = false, capped: PoolSize['capped'] = null): string {
  const { memoryBytes, weightBytes, reserveBytes, budgetBytes } = capacity;
  const pool = `${blocks} block${blocks === 1 ? '' : 's'} x ${blockSize} tokens`;
  const head = `KV capacity: ${size(memoryBytes)} memory - ${size(weightBytes)} weights - ${size(reserveBytes)} reserve = ${size(budgetBytes)}`;
  if (setByRun) return `${head}; the run's own pool: ${pool}`;
  return `${head} -> ${pool}${capped ? ` (capped: ${capped.sequences} sequences x ${capped.tokens} tokens)` : ''}`;
}
