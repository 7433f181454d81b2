// CPU time of a process's threads by kind, read from Linux's /proc (clock ticks of 10 ms):
// how the cores were shared between the HTTP side (Node's main thread), the engine (its worker
// threads) and the rest (V8's GC helpers, libuv's pool). Empty where /proc is not Linux's.
import { readdirSync } from 'node:fs';
import { threadStat } from '../../src/kb/thread-cpu.ts';
import { API_SERVER_THREAD_NAME } from '../../src/serve/api-server-pool.ts';

export interface ThreadCpu {
  /** The main thread and kb serve's API server threads: HTTP, JSON, SSE (kb serve), or the benchmark runner (in-process). */
  mainMs: number;
  /** Node worker threads: the engine's step loop and the cpu backend's helpers. */
  engineMs: number;
  /** Everything else: V8's GC and compiler helpers, libuv's pool. */
  otherMs: number;
}

function sample(pid: number | 'self'): Map<string, { name: string; ms: number }> {
  const threads = new Map<string, { name: string; ms: number }>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    const stat = threadStat(pid, tid); // null: the thread ended between the listing and the read
    if (stat) threads.set(tid, { name: stat.name, ms: stat.cpuMs });
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
      if (tid === String(pid === 'self' ? process.pid : pid) || name === API_SERVER_THREAD_NAME) cpu.mainMs += used;
      else if (name === 'WorkerThread') cpu.engineMs += used;
      else cpu.otherMs += used;
    }
    return cpu;
  };
}
