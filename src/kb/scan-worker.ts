// A worker thread of kb scan: says when it is ready, then runs scanFile on the batches it is sent.
import { parentPort } from 'node:worker_threads';
import { scanFile, type ScanFileContext, type ScanFileInput } from './scan-file.ts';

parentPort?.on('message', (message: { batch: ScanFileInput[]; context: ScanFileContext }) => {
  parentPort?.postMessage(message.batch.map((input) => scanFile(input, message.context)));
});
parentPort?.postMessage('ready');
