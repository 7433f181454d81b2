// Turns a request's output tokens into text deltas as they arrive. Two things make this more
// than decode-per-token: GPT-2's byte-level BPE can split one UTF-8 character over several
// tokens (so text is released only once it decodes whole), and stop strings must be cut
// before they are sent (so text that could still grow into a stop string is held back).

export interface Detokenizer {
  decode(ids: readonly number[]): string;
}

export interface TextStep {
  /** Text that is now safe to send (may be empty). */
  delta: string;
  /** The stop string that ended the output here, if one did. */
  stopString: string | null;
}

const REPLACEMENT = '\uFFFD';

export class TextStream {
  private readonly detokenizer: Detokenizer;
  private readonly stops: readonly string[];
  private readonly skipIds: ReadonlySet<number>;
  /** Tokens not yet turned into text (they end inside a multi-byte character). */
  private pendingIds: number[] = [];
  /** Decoded text not yet sent: it may be the start of a stop string. */
  private held = '';
  private readonly holdBack: number;
  /** Everything sent so far. */
  text = '';

  constructor(detokenizer: Detokenizer, stops: readonly string[], skipIds: ReadonlySet<number>) {
    this.detokenizer = detokenizer;
    this.stops = stops.filter((stop) => stop.length > 0);
    this.skipIds = skipIds;
    this.holdBack = Math.max(0, ...this.stops.map((stop) => stop.length - 1));
  }

  /** Adds one token; `last` releases everything held (the output ends here). */
  push(token: number, last: boolean): TextStep {
    if (!this.skipIds.has(token)) this.pendingIds.push(token);
    if (this.pendingIds.length > 0) {
      const decoded = this.detokenizer.decode(this.pendingIds);
      // A partial character decodes to U+FFFD at the end; wait for the bytes that complete it.
      if (!decoded.endsWith(REPLACEMENT) || last) {
        this.held += decoded;
        this.pendingIds = [];
      }
    }
    return this.release(last);
  }

  /** Releases what is held (the request ended for another reason). */
  flush(): string {
    if (this.pendingIds.length > 0) {
      this.held += this.detokenizer.decode(this.pendingIds);
      this.pendingIds = [];
    }
    return this.release(true).delta;
  }

  private release(last: boolean): TextStep {
    // The earliest stop string wins, searched from where it could first start.
    const from = Math.max(0, this.text.length - this.holdBack);
    const window = this.text.slice(from) + this.held;
    let cut = -1;
    let stopString: string | null = null;
    for (const stop of this.stops) {
      const at = window.indexOf(stop);
      if (at !== -1 && (cut === -1 || at < cut)) {
        cut = at;
        stopString = stop;
      }
    }
    if (stopString !== null) {
      const keep = from + cut - this.text.length;
      const delta = keep > 0 ? this.held.slice(0, keep) : '';
      this.text += delta;
      this.held = '';
      return { delta, stopString };
    }
    const release = last ? this.held.length : Math.max(0, this.held.length - this.holdBack);
    const delta = this.held.slice(0, release);
    this.held = this.held.slice(release);
    this.text += delta;
    return { delta, stopString: null };
  }
}
