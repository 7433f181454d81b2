// A terminal for benchmarks that mount an Ink screen in-process the way kb does (real
// output path: throttling, log-update, alternate screen), without a pseudo-terminal.
// ink-testing-library does not do for this: it renders in Ink's debug mode, which skips
// exactly the throttling and diffing whose latency the benchmark measures.
import { EventEmitter } from 'node:events';

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b[()][0-9A-Za-z]|\u001b[=>78]/g;

export class FakeTtyOut extends EventEmitter {
  isTTY = true;
  columns = 100;
  rows = 30;
  /** Everything written since the last take(), escape sequences removed. */
  private pending = '';
  write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    this.pending += String(chunk).replace(ANSI, '');
    this.emit('written');
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  };
  take(): string {
    const text = this.pending;
    this.pending = '';
    return text;
  }
}

export class FakeTtyIn extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  /** A key press, as a terminal in raw mode delivers it. */
  press(key: string): void {
    this.data = key;
    this.emit('readable');
    this.emit('data', key);
  }
  read = (): string | null => {
    const data = this.data;
    this.data = null;
    return data;
  };
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}
