// The client's side of the engine worker's protocol, over whatever carries its messages: the
// Worker itself (the thread that created the engine) or a MessagePort (a thread the engine was
// shared with). Requests go out as messages, events come back the same way; submitting never
// waits for a step.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { monotonicClock } from '../engine-clock.ts';
import type { KernelProfile } from '../backend/webgpu/profile.ts';
import type { EngineStats } from '../metrics/step-stats.ts';
import type { EngineHost, EngineInfo } from './engine-host.ts';
import type { FromWorker, ToWorker } from './worker-protocol.ts';

/** What a reply carries: stats or a profile, depending on the question. */
interface ReplyPayload {
  stats?: EngineStats;
  profile?: KernelProfile;
}

interface PendingReply {
  resolve: (payload: ReplyPayload) => void;
  reject: (error: Error) => void;
}

export interface HostChannel {
  postMessage(message: ToWorker, transfer: MessagePort[]): void;
  on(event: 'message', listener: (message: FromWorker) => void): unknown;
}

export interface HostEnding {
  /** Ends this client's use of the engine: `close` (stop the loop) or `detach` (the engine runs on for others). */
  last: 'close' | 'detach';
  /** Lets go of the channel once the engine has answered (terminate the worker, close the port). */
  release(): Promise<void> | void;
}

export interface MessageHost {
  /** Resolves once the engine says it is ready; rejects if the channel dies first. */
  ready: Promise<EngineHost>;
  /** The channel is gone for `error` (a crash is fatal to every open request; an expected end is not). */
  die(error: Error, expected?: boolean): void;
}

export function connectHost(channel: HostChannel, ending: HostEnding): MessageHost {
  const replies = new Map<number, PendingReply>();
  let nextReply = 0;
  let host: EngineHost | null = null;
  let startFailed: ((error: Error) => void) | null = null;
  let dead: Error | null = null; // set once the engine is gone for this client
  let onGone: (() => void) | null = null;

  const die = (error: Error, expected = false) => {
    if (dead) return;
    dead = error;
    for (const reply of replies.values()) reply.reject(error);
    replies.clear();
    if (!host) startFailed?.(error);
    else if (!expected) host.onFatal(error);
    onGone?.();
  };

  const send = (message: ToWorker, transfer: MessagePort[] = []) => {
    if (dead) throw new Error(`engine unavailable: ${dead.message}`);
    channel.postMessage(message, transfer);
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

  const info = new Promise<EngineInfo>((resolve, reject) => {
    startFailed = reject;
    channel.on('message', (message: FromWorker) => {
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
          void ending.release();
          return;
        }
        case 'closed':
          return die(new Error('the engine is closed'), ending.last === 'close');
      }
    });
  });

  const ready = info.then((info) => {
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
      connectPort() {
        const { port1, port2 } = new MessageChannel();
        send({ type: 'attach', port: port2 }, [port2]);
        return port1;
      },
      async close() {
        if (!dead && ending.last === 'close') {
          // The creator waits for the loop to stop (its 'closed').
          const gone = new Promise<void>((resolve) => (onGone = resolve));
          send({ type: 'close' });
          await gone;
        } else if (!dead) {
          send({ type: 'detach' });
          die(new Error('the engine is closed'), true);
        }
        await ending.release();
      },
    };
    return host;
  });
  return { ready, die };
}
