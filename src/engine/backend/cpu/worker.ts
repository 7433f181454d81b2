// A helper thread: waits for a command from the calling thread, runs its share of the forward
// pass, and goes back to waiting. It never returns to its event loop while the backend lives,
// so the new layout after a grow is picked up synchronously with receiveMessageOnPort.

import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { MemoryLayout } from './buffers.ts';
import { forward } from './cpu-forward.ts';
import { barrier, CMD, CTL, markFailed, waitForCommand } from './thread-sync.ts';
import { createThreadState, type SharedState } from './thread-state.ts';

export interface WorkerInit {
  shared: SharedState;
  tid: number;
}

const { shared, tid } = workerData as WorkerInit;
const port = parentPort!;
let state = createThreadState(shared, tid);
const ctl = state.ctl;
let seenGen = Atomics.load(ctl, CTL.GEN);
// However this thread ends, the calling thread must not wait for it at a barrier.
process.on('exit', () => markFailed(ctl));
port.postMessage('ready');

try {
  for (;;) {
    seenGen = waitForCommand(ctl, seenGen);
    const cmd = Atomics.load(ctl, CTL.CMD);
    if (cmd === CMD.EXIT) break;
    if (cmd === CMD.RELOAD) {
      let message = receiveMessageOnPort(port);
      while (!message) message = receiveMessageOnPort(port);
      state = createThreadState({ ...shared, layout: message.message as MemoryLayout }, tid);
      barrier(ctl, shared.nThreads);
    } else if (cmd === CMD.FORWARD) {
      forward(state);
    }
  }
} catch (error) {
  markFailed(ctl);
  throw error;
}
port.close();
