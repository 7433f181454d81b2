// Small Int32Arrays carved out of shared chunks. A typed array with a buffer of its own is an
// allocation outside the JS heap (the buffer, and a record the garbage collector sweeps): 1-2 µs
// each, paid per step and per request by a million-request sim run, where a view into a
// chunk costs one ordinary object. Views never overlap and a chunk is never reused, so a view
// keeps its values as long as anyone holds it (and keeps its whole chunk alive that long). A
// view's .buffer is its chunk: never post one to another thread (the chunk would be copied).

export class Int32Chunks {
  private readonly chunkLength: number;
  private chunk: Int32Array;
  private used = 0;

  constructor(chunkLength = 16384) {
    this.chunkLength = chunkLength;
    this.chunk = new Int32Array(0);
  }

  /** A zero-filled Int32Array of `length` elements. */
  take(length: number): Int32Array {
    // Large arrays get a buffer of their own, so that one never pins a chunk mostly for others.
    if (length > this.chunkLength / 8) return new Int32Array(length);
    if (this.used + length > this.chunk.length) {
      this.chunk = new Int32Array(this.chunkLength);
      this.used = 0;
    }
    const view = this.chunk.subarray(this.used, this.used + length);
    this.used += length;
    return view;
  }
}
