// A helper thread of a batch of swaps (swap-share.ts): takes writes from the shared counter
// until none is left, and reports each failure on its port before counting the write done.
import { parentPort, type MessagePort } from 'node:worker_threads';
import type { StagedWrite } from './atomic-write.ts';
import { swapClaimed, toSwapFailure } from './swap-share.ts';

parentPort?.on('message', (message: { staged: StagedWrite[]; counters: SharedArrayBuffer; port: MessagePort }) => {
  swapClaimed(message.staged, new Int32Array(message.counters), (index, error) => message.port.postMessage(toSwapFailure(index, error)));
});
