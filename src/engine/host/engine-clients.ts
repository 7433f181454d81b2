// The engine worker's clients: the thread that created it, and the threads it was shared with
// (engine.connectPort(): kb serve's API server threads). Each numbers its own requests from 0;
// the step loop needs one id space, so a shared thread's request runs under an id that encodes
// its client (above every id the creating thread can reach), and its events are split back out
// per client. With no thread attached, events pass through as they come.
import type { MessagePort } from 'node:worker_threads';
import type { EngineEvent } from '../core/request.ts';
import type { FromWorker } from './worker-protocol.ts';

/** Ids from here up belong to attached clients: 2^44 is far above any count of requests one thread submits. */
const ATTACHED_BASE = 2 ** 44;
/** Threads an engine can be shared with (engine.connectPort()): client slots besides the creator's 0; 2^44 + 2^46 stays within exact doubles. */
export const MAX_SHARED_THREADS = 63;
const SLOTS = MAX_SHARED_THREADS + 1;

export interface EngineClientPort {
  post(message: FromWorker): void;
}

interface AttachedClient extends EngineClientPort {
  port: MessagePort;
  /** Its requests still in the loop (step-loop ids), to abort should the thread go away. */
  open: Set<number>;
}

export class EngineClients {
  private readonly attached: (AttachedClient | undefined)[] = [];
  private attachedCount = 0;

  private readonly creator: EngineClientPort;

  constructor(creator: EngineClientPort) {
    this.creator = creator;
  }

  /** Adds a client; returns its slot, or throws when every slot has been used. */
  attach(port: MessagePort): number {
    if (this.attached.length >= MAX_SHARED_THREADS) throw new Error(`an engine can be shared with at most ${MAX_SHARED_THREADS} threads`);
    this.attached.push({ port, open: new Set(), post: (message) => port.postMessage(message) });
    this.attachedCount++;
    return this.attached.length; // slots start at 1
  }

  detach(slot: number): void {
    const client = this.attached[slot - 1];
    if (client === undefined) return;
    this.attached[slot - 1] = undefined;
    this.attachedCount--;
    client.port.close();
  }

  /** The engine has stopped: tells every attached client so and lets go of it. */
  closeAll(): void {
    for (let slot = 1; slot <= this.attached.length; slot++) {
      this.client(slot)?.post({ type: 'closed' });
      this.detach(slot);
    }
  }

  /** The step loop's id for client `slot`'s request `id` (slot 0: the creator, unchanged). */
  coreId(slot: number, id: number): number {
    return slot === 0 ? id : ATTACHED_BASE + id * SLOTS + slot;
  }

  /** Client `slot` submitted request `coreId`: it is open until it finishes or fails. */
  opened(slot: number, coreId: number): void {
    if (slot !== 0) this.attached[slot - 1]?.open.add(coreId);
  }

  /** The requests client `slot` still has in the loop (step-loop ids). */
  openRequests(slot: number): number[] {
    return [...(this.attached[slot - 1]?.open ?? [])];
  }

  /** Sends each client the events of its own requests, under its own ids. */
  route(events: EngineEvent[]): void {
    if (events.length === 0) return;
    if (this.attachedCount === 0) {
      this.creator.post({ type: 'events', events });
      return;
    }
    const perSlot = new Map<number, EngineEvent[]>();
    const out = (slot: number) => {
      let list = perSlot.get(slot);
      if (!list) perSlot.set(slot, (list = []));
      return list;
    };
    for (const event of events) {
      if (event.type === 'admit' || event.type === 'tokens') {
        // One event per client that has requests in it, each with only its own.
        const split = new Map<number, { ids: number[]; tokens: number[] }>();
        for (let i = 0; i < event.ids.length; i++) {
          const [slot, id] = owner(event.ids[i]);
          let part = split.get(slot);
          if (!part) split.set(slot, (part = { ids: [], tokens: [] }));
          part.ids.push(id);
          if (event.type === 'tokens') part.tokens.push(event.tokens[i]);
        }
        for (const [slot, part] of split) {
          out(slot).push(event.type === 'tokens' ? { type: 'tokens', ids: part.ids, tokens: part.tokens, time: event.time } : { type: 'admit', ids: part.ids, time: event.time });
        }
      } else {
        const [slot, id] = owner(event.id);
        if (slot !== 0) this.attached[slot - 1]?.open.delete(event.id);
        out(slot).push({ ...event, id });
      }
    }
    for (const [slot, list] of perSlot) this.client(slot)?.post({ type: 'events', events: list });
  }

  /** The client in `slot`, or undefined once it has detached (its events are dropped). */
  client(slot: number): EngineClientPort | undefined {
    return slot === 0 ? this.creator : this.attached[slot - 1];
  }
}

/** [client slot, the client's own id] of a step-loop id. */
function owner(coreId: number): [number, number] {
  if (coreId < ATTACHED_BASE) return [0, coreId];
  const rest = coreId - ATTACHED_BASE;
  const slot = rest % SLOTS;
  return [slot, (rest - slot) / SLOTS];
}
