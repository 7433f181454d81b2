// The main thread's side of the engine worker: requests go out as messages, events come
// back the same way. Submitting never waits for a step.
import { Worker } from 'node:worker_threads';
import { monotonicClock } from '../engine-clock.ts';
import type { KernelProfile } from '../backend/webgpu/profile.ts';
import type { EngineStats } from '../metrics/step-stats.ts';
import type { EngineHost, EngineInfo } from './engine-host.ts';
import type { ResolvedEngineOptions } from '../engine-options.ts';
import type { ModelConfig } from '../model/model-config.ts';
import type { FromWorker, ToWorker, WorkerData } from './worker-protocol.ts';
import { threadEntry } from '../thread-entry.ts';

/** What a reply carries: stats or a profile, depending on the question. */
interface ReplyPayload {
  stats?: EngineStats;
  profile?: KernelProfile;
}

interface PendingReply {
  resolve: (payload: ReplyPayload) => void;
  reject: (error: Error) => void;
}

export async function createWorkerHost(options: ResolvedEngineOptions, config: ModelConfig): Promise<EngineHost> {
  const data: WorkerData = { options, config };
  const worker = new Worker(threadEntry('engine-worker', new URL('./engine-worker.js', import.meta.url)), { workerData: data });
  const replies = new Map<number, PendingReply>();
  let nextReply = 0;
  let host: EngineHost | null = null;
  let startFailed: ((error: Error) => void) | null = null;
  let dead: Error | null = null; // set once the worker is gone
  let onGone: (() => void) | null = null;

  /** The worker is gone: after a close (expected) or a crash (fatal to every open request). */
  const die = (error: Error, expected = false) => {
    if (dead) return;
    dead = error;
    for (const reply of replies.values()) reply.reject(error);
    replies.clear();
    if (!host) startFailed?.(error);
    else if (!expected) host.onFatal(error);
    onGone?.();
  };

  const info = await new Promise<EngineInfo>((resolve, reject) => {
    startFailed = reject;
    worker.on('message', (message: FromWorker) => {
      switch (message.type) {
        case 'ready':
          return resolve(message.info);
        case 'events':
          return host?.onEvents(message.events);
        case 'reply':
          replies.get(message.replyTo)?.resolve({ stats: message.stats, profile: message.profile });
          replies.delete(message.replyTo);
          return;
        case 'fatal': {
          const error = new Error(message.message);
          if (message.stack) error.stack = message.stack;
          die(error);
          void worker.terminate();
          return;
        }
        case 'closed':
          return die(new Error('the engine is closed'), true);
      }
    });
    worker.on('error', (error: Error) => die(error));
    worker.on('exit', (code) => die(new Error(`the engine worker exited (code ${code})`)));
  });

  const send = (message: ToWorker) => {
    if (dead) throw new Error(`engine unavailable: ${dead.message}`);
    worker.postMessage(message);
  };
  const ask = (message: (replyTo: number) => ToWorker) =>
    new Promise<ReplyPayload>((resolve, reject) => {
      const replyTo = nextReply++;
      replies.set(replyTo, { resolve, reject });
      try {
        send(message(replyTo));
      } catch (error) {
        replies.delete(replyTo);
        reject(error);
      }
    });

  host = {
    info,
    clock: monotonicClock,
    onEvents: () => {},
    onFatal: () => {},
    submit: (id, request) => send({ type: 'submit', id, request }),
    abort: (id) => {
      if (!dead) send({ type: 'abort', id });
    },
    sleepUntil(time) {
      const delay = time - monotonicClock.now();
      return delay <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, delay));
    },
    async stats() {
      return (await ask((replyTo) => ({ type: 'stats', replyTo }))).stats!;
    },
    async profile() {
      return (await ask((replyTo) => ({ type: 'profile', replyTo }))).profile;
    },
    async clearPrefixCache() {
      await ask((replyTo) => ({ type: 'clear-prefix-cache', replyTo }));
    },
    async close() {
      if (!dead) {
        const gone = new Promise<void>((resolve) => (onGone = resolve));
        send({ type: 'close' });
        await gone;
      }
      await worker.terminate();
    },
  };
  return host;
}
