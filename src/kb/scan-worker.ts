// A worker thread of kb scan: says when it is ready, then runs scanFileStaged on the batches it is sent
// (ids to write are left in temp files, for the main thread to fsync and swap in).
// Given a shared slot (the guarded scan's), it first writes its kernel thread id there, so
// its CPU time can be read while it is busy.
import { parentPort, workerData } from 'node:worker_threads';
import { scanFileStaged, type ScanFileContext, type ScanFileInput } from './scan-file.ts';
import { currentThreadId } from './thread-cpu.ts';

const slot = (workerData as { threadIdSlot?: Int32Array } | undefined)?.threadIdSlot;
if (slot) slot[0] = currentThreadId() ?? 0;

parentPort?.on('message', (message: { batch: ScanFileInput[]; context: ScanFileContext }) => {
  parentPort?.postMessage(message.batch.map((input) => scanFileStaged(input, message.context)));
});
parentPort?.postMessage('ready');
