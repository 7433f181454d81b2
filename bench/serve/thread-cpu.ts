// CPU time of a process's threads by kind, read from Linux's /proc (clock ticks of 10 ms):
// how the cores were shared between the HTTP side (Node's main thread), the engine (its worker
// threads) and the rest (V8's GC helpers, libuv's pool). Empty where /proc is not Linux's.
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadCpu {
  /** The main thread: HTTP, JSON, SSE (kb serve), or the benchmark runner (in-process). */
  mainMs: number;
  /** Node worker threads: the engine's step loop and the cpu backend's helpers. */
  engineMs: number;
  /** Everything else: V8's GC and compiler helpers, libuv's pool. */
  otherMs: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

function sample(pid: number | 'self'): Map<string, { name: string; ms: number }> {
  const threads = new Map<string, { name: string; ms: number }>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      // utime and stime are fields 14 and 15 of stat; fields[0] here is field 3.
      threads.set(tid, { name: stat.slice(stat.indexOf('(') + 1, close), ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return threads;
}

/** Starts counting; the returned function gives the CPU time each kind of thread used since. */
export function threadCpu(pid: number | 'self'): () => ThreadCpu {
  const before = sample(pid);
  return () => {
    const cpu: ThreadCpu = { mainMs: 0, engineMs: 0, otherMs: 0 };
    for (const [tid, { name, ms }] of sample(pid)) {
      const used = ms - (before.get(tid)?.ms ?? 0);
      if (tid === String(pid === 'self' ? process.pid : pid)) cpu.mainMs += used;
      else if (name === 'WorkerThread') cpu.engineMs += used;
      else cpu.otherMs += used;
    }
    return cpu;
  };
}
