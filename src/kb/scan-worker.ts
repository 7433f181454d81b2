// A worker thread of kb scan: says when it is ready, then runs scanFileStaged on the batches it
// is sent (ids to write are left in temp files, for the main thread to fsync and swap in).
import { parentPort } from 'node:worker_threads';
import { scanFileStaged, type ScanFileContext, type ScanFileInput } from './scan-file.ts';

parentPort?.on('message', (message: { batch: ScanFileInput[]; context: ScanFileContext }) => {
  parentPort?.postMessage(message.batch.map((input) => scanFileStaged(input, message.context)));
});
parentPort?.postMessage('ready');
