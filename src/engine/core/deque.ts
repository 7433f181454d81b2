// A double-ended queue on a ring buffer: push, shift and unshift in O(1). The scheduler's waiting
// queue takes newcomers at the back, admits from the front and puts preempted sequences back at
// the front; on an overloaded engine (a sim run far past its capacity) it holds every request
// not yet admitted, and an array's shift/unshift, which move every element, made each step cost
// in proportion to the queue: 100,000 requests took twice as long per request as 10,000.

export class Deque<T> {
  private items: (T | undefined)[] = new Array(16);
  private head = 0;
  private size = 0;

  get length(): number {
    return this.size;
  }

  /** The element at position `index` from the front (0 is the front), or undefined. */
  at(index: number): T | undefined {
    return index >= 0 && index < this.size ? this.items[(this.head + index) & (this.items.length - 1)] : undefined;
  }

  push(item: T): void {
    if (this.size === this.items.length) this.grow();
    this.items[(this.head + this.size) & (this.items.length - 1)] = item;
    this.size++;
  }

  unshift(item: T): void {
    if (this.size === this.items.length) this.grow();
    this.head = (this.head - 1) & (this.items.length - 1);
    this.items[this.head] = item;
    this.size++;
  }

  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined; // no reference kept to a sequence that has left
    this.head = (this.head + 1) & (this.items.length - 1);
    this.size--;
    return item;
  }

  indexOf(item: T): number {
    for (let i = 0; i < this.size; i++) if (this.at(i) === item) return i;
    return -1;
  }

  /** Removes the element at `index` (an abort: rare, so O(n) is fine). */
  removeAt(index: number): void {
    if (index < 0 || index >= this.size) return;
    const mask = this.items.length - 1;
    for (let i = index; i < this.size - 1; i++) this.items[(this.head + i) & mask] = this.items[(this.head + i + 1) & mask];
    this.items[(this.head + this.size - 1) & mask] = undefined;
    this.size--;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.size; i++) yield this.at(i)!;
  }

  /** Doubles the ring (its length stays a power of two, so an index wraps with a mask). */
  private grow(): void {
    const bigger: (T | undefined)[] = new Array(this.items.length * 2);
    for (let i = 0; i < this.size; i++) bigger[i] = this.at(i);
    this.items = bigger;
    this.head = 0;
  }
}
