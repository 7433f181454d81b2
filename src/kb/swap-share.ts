// Swaps a batch of staged writes in on several threads at once: the main thread and helper
// threads (swap-worker.ts) take the next write from one shared counter, so no thread idles
// while another has a queue, and one that never starts takes nothing. The main thread can do
// other work (a scan's database transaction) while the helpers start on the batch.
import { swapIn, FileChangedError, type StagedWrite } from './atomic-write.ts';

/** A swap that failed on a helper thread, as plain data (an Error does not cross threads whole). */
export interface SwapFailure {
  index: number;
  name: string;
  message: string;
  code?: string;
  syscall?: string;
  /** FileChangedError's reason. */
  reason?: string;
}

/** The shared counters: [next write to claim, writes done]. */
export const NEXT = 0;
export const DONE = 1;

/** Claims writes from `counters` until none is left, swapping each in; reports each failure. */
export function swapClaimed(staged: StagedWrite[], counters: Int32Array, onFailure: (index: number, error: unknown) => void): void {
  for (let index = Atomics.add(counters, NEXT, 1); index < staged.length; index = Atomics.add(counters, NEXT, 1)) {
    try {
      swapIn(staged[index]);
    } catch (error) {
      onFailure(index, error);
    }
    Atomics.add(counters, DONE, 1);
    Atomics.notify(counters, DONE);
  }
}

export function toSwapFailure(index: number, error: unknown): SwapFailure {
  const { name, message, code, syscall } = error as Error & { code?: unknown; syscall?: unknown };
  return {
    index,
    name: String(name),
    message: String(message),
    code: typeof code === 'string' ? code : undefined,
    syscall: typeof syscall === 'string' ? syscall : undefined,
    reason: error instanceof FileChangedError ? error.reason : undefined,
  };
}

/** The error a helper reported, rebuilt on this thread so it is told apart as the original was. */
export function fromSwapFailure(failure: SwapFailure, staged: StagedWrite): Error {
  if (failure.reason !== undefined) return new FileChangedError(staged.abs, failure.reason);
  const error = new Error(failure.message) as Error & { code?: string; syscall?: string };
  error.name = failure.name;
  if (failure.code !== undefined) error.code = failure.code;
  if (failure.syscall !== undefined) error.syscall = failure.syscall;
  return error;
}
