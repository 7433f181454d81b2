// Decides what one step computes: a ragged batch of decode tokens (running sequences, oldest
// first) followed by prefill chunks of newly admitted requests, under the token budget and
// the sequence caps. When blocks run out, the newest running sequence is preempted: its
// blocks are freed and it waits at the head of the queue to be recomputed. With contiguous
// KV reservation a request is admitted only with blocks for its whole maximum length, so it
// never grows and never preempts; it simply waits longer to get in.
import type { BlockManager } from './block-manager.ts';
import { Deque } from './deque.ts';
import type { FinishReason, Sequence } from './sequence.ts';
import type { SchedulerOptions } from './scheduler-options.ts';

/** Receives a finished step's tokens and finished sequences, in batch order. */
export interface StepSink {
  onToken(seq: Sequence, token: number): void;
  onFinish(seq: Sequence, reason: FinishReason): void;
}

export class Scheduler {
  readonly waiting = new Deque<Sequence>();
  readonly running: Sequence[] = [];
  /** This step's sequences in batch order (reused every step). */
  readonly scheduled: Sequence[] = [];
  /** Sequences scheduled for the first time this step (their admit stamp). */
  readonly admitted: Sequence[] = [];
  /**
   * Sequences that took blocks this step (newcomers, sequences resumed after preemption, static
   * batch members starting), each after looking its tokens up in the prefix cache.
   */
  readonly started: Sequence[] = [];
  /** Sequences preempted this step: their blocks freed, back at the head of the queue. */
  readonly preempted: Sequence[] = [];
  private readonly options: SchedulerOptions;
  private readonly blocks: BlockManager;
  private readonly maxModelLen: number;

  constructor(options: SchedulerOptions, blocks: BlockManager, maxModelLen: number) {
    this.options = options;
    this.blocks = blocks;
    this.maxModelLen = maxModelLen;
  }

  /** Why this sequence can never run here, or null. */
  rejectReason(seq: Sequence): string | null {
    const prompt = seq.numPromptTokens;
    if (prompt === 0) return 'the prompt is empty';
    if (prompt > this.maxModelLen) return `the prompt has ${prompt} tokens; the model's context is ${this.maxModelLen}`;
    const slots = this.maxSlots(seq);
    const needed = this.blocks.blocksFor(slots);
    if (needed > this.blocks.numBlocks) {
      return `the request needs ${needed} KV blocks (${slots} tokens); the pool has ${this.blocks.numBlocks}`;
    }
    if (this.options.chunkSize === 0 && prompt > this.options.maxBatchedTokens) {
      return `the prompt has ${prompt} tokens, more than maxBatchedTokens (${this.options.maxBatchedTokens}) with chunked prefill off`;
    }
    return null;
  }

  /** Slots the sequence can ever fill: what contiguous reservation sets aside at admission. */
  maxSlots(seq: Sequence): number {
    // The last sampled token is emitted but never fed back, so it needs no slot.
    return Math.min(seq.numPromptTokens + seq.params.maxNewTokens - 1, this.maxModelLen);
  }

  add(seq: Sequence): void {
    seq.status = 'waiting';
    this.waiting.push(seq);
  }

  hasWork(): boolean {
    return this.waiting.length > 0 || this.running.length > 0;
  }

  schedule(): Sequence[] {
    const { scheduled, admitted, running, waiting } = this;
    empty(scheduled);
    empty(admitted);
    empty(this.started);
    empty(this.preempted);
    let budget = this.options.maxBatchedTokens;

    if (this.options.policy === 'static' && running.length === 0) {
      // Form the next fixed batch; it takes no newcomers until every member has finished.
      while (waiting.length > 0 && running.length < this.options.maxNumSeqs) this.moveToRunning(waiting.shift()!);
    }

    for (let i = 0; i < running.length && budget > 0; i++) {
      const seq = running[i];
      if (seq.blockTable.length === 0 && seq.numComputed === 0) {
        // A static-batch member not started yet; later members wait behind it (FCFS).
        const count = this.start(seq, budget);
        if (count === 0) break;
        budget -= count;
        continue;
      }
      const count = Math.min(seq.numUncomputed, this.chunkLimit(seq), budget);
      if (count === 0) continue;
      if (!this.growOrPreempt(seq, seq.numComputed + count)) break; // preempted itself
      this.place(seq, count);
      budget -= count;
    }

    if (this.options.policy === 'continuous') {
      let newcomers = 0;
      while (
        waiting.length > 0 &&
        budget > 0 &&
        running.length < this.options.maxNumSeqs &&
        newcomers < this.options.prefillMaxBatch
      ) {
        const seq = waiting.at(0)!;
        const count = this.start(seq, budget);
        if (count === 0) break; // first come, first served: nobody overtakes the head
        waiting.shift();
        this.moveToRunning(seq);
        budget -= count;
        newcomers++;
      }
    }

    return scheduled;
  }

  /** Gives a sequence holding no blocks its cached prefix and first chunk; 0 if it cannot start. */
  private start(seq: Sequence, budget: number): number {
    const hits = this.blocks.matchPrefix(seq);
    const remaining = seq.numTokens - hits.length * this.blocks.blockSize;
    const count = Math.min(remaining, this.chunkLimit(seq), budget);
    if (this.options.chunkSize === 0 && count < remaining && seq.numOutputTokens === 0) return 0;
    if (count === 0) return 0;
    const filled = hits.length * this.blocks.blockSize + count;
    const reserved = this.options.kvReservation === 'contiguous' ? Math.max(filled, this.maxSlots(seq)) : filled;
    if (!this.blocks.canAllocate(hits, reserved)) return 0;
    this.blocks.takePrefix(seq, hits);
    this.blocks.grow(seq, reserved);
    this.started.push(seq);
    this.place(seq, count);
    return count;
  }

  /** Most tokens of this sequence one step may take (before the budget). */
  private chunkLimit(seq: Sequence): number {
    const remaining = seq.numUncomputed;
    // Without chunking a prompt runs whole; a recompute longer than the budget still chunks.
    return this.options.chunkSize === 0 ? remaining : Math.min(remaining, this.options.chunkSize);
  }

  private growOrPreempt(seq: Sequence, numTokens: number): boolean {
    while (!this.blocks.grow(seq, numTokens)) {
      const victim = this.newestHolding(seq);
      this.preempt(victim);
      if (victim === seq) return false;
    }
    return true;
  }

  /** The newest running sequence that holds blocks (preempting one that holds none frees nothing). */
  private newestHolding(seq: Sequence): Sequence {
    for (let i = this.running.length - 1; i >= 0; i--) {
      const candidate = this.running[i];
      if (candidate === seq || candidate.blockTable.length > 0) return candidate;
    }
    return seq;
  }

  private place(seq: Sequence, count: number): void {
    seq.numScheduled = count;
    seq.samples = seq.numComputed + count === seq.numTokens;
    if (!seq.admitted) {
      seq.admitted = true;
      this.admitted.push(seq);
    }
    this.scheduled.push(seq);
  }

  private moveToRunning(seq: Sequence): void {
    seq.status = 'running';
    this.running.push(seq);
  }

  private preempt(seq: Sequence): void {
    this.running.splice(this.running.lastIndexOf(seq), 1);
    this.blocks.release(seq);
    seq.numScheduled = 0;
    seq.status = 'waiting';
    seq.preemptions++;
    this.preempted.push(seq);
    this.waiting.unshift(seq);
  }

  /**
   * Applies a finished step: computed counts, newly full blocks to the prefix cache, and
   * one sampled token per sequence whose tokens are now all computed.
   */
  postprocess(tokens: Int32Array, sink: StepSink): void {
    let row = 0;
    for (const seq of this.scheduled) {
      if (seq.status === 'finished') {
        // Aborted while the step ran; its row (if any) is skipped.
        if (seq.samples) row++;
        continue;
      }
      const before = seq.numComputed;
      seq.numComputed += seq.numScheduled;
      seq.numScheduled = 0;
      this.blocks.commit(seq, before);
      if (!seq.samples) continue; // mid-prefill: nothing to sample yet
      const token = tokens[row++];
      seq.append(token);
      sink.onToken(seq, token);
      const reason = this.finishReason(seq, token);
      if (reason !== null) {
        this.finish(seq);
        sink.onFinish(seq, reason);
      }
    }
  }

  /** Removes a sequence wherever it is (abort); false if it was not here. */
  abort(seq: Sequence): boolean {
    if (seq.status === 'waiting') {
      const index = this.waiting.indexOf(seq);
      if (index < 0) return false;
      this.waiting.removeAt(index);
    } else {
      const index = this.running.indexOf(seq);
      if (index < 0) return false;
      this.running.splice(index, 1);
    }
    this.blocks.release(seq);
    seq.status = 'finished';
    return true;
  }

  private finishReason(seq: Sequence, token: number): FinishReason | null {
    if (seq.params.stopTokenIds.includes(token) || seq.numOutputTokens >= seq.params.stopAfterTokens) return 'stop';
    if (seq.numOutputTokens >= seq.params.maxNewTokens) return 'length';
    // The next step would feed this token at position numTokens - 1.
    if (seq.numTokens > this.maxModelLen) return 'context';
    return null;
  }

  private finish(seq: Sequence): void {
    this.running.splice(this.running.indexOf(seq), 1);
    this.blocks.release(seq);
    seq.status = 'finished';
  }
}

/**
 * Empties a list the scheduler refills every step, keeping its storage: V8 frees an array's
 * storage when its length is set to 0, and the next step's pushes would allocate it again.
 */
function empty(list: Sequence[]): void {
  while (list.length > 0) list.pop();
}
