// CPU time of one thread of this process, read from Linux's /proc: a worker stuck in a parse
// cannot answer, but the kernel knows how long it has run. A budget in CPU time holds on a
// loaded machine, where wall time would skip good files because other processes ran.
import { readFileSync, readlinkSync } from 'node:fs';

/** Linux's USER_HZ, the unit of /proc's times: 100 on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** The calling thread's id in the kernel (Linux), or null elsewhere. */
export function currentThreadId(): number | null {
  try {
    const match = /\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** CPU milliseconds (user + system) thread `tid` of this process has used, or null when unknown. */
export function threadCpuMs(tid: number): number | null {
  return threadStat('self', tid)?.cpuMs ?? null;
}

/** Thread `tid` of process `pid`: its name and the CPU milliseconds it has used; null when it cannot be read (gone, or not Linux). */
export function threadStat(pid: number | 'self', tid: number | string): { name: string; cpuMs: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; utime is 14, stime 15.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? { name: stat.slice(stat.indexOf('(') + 1, close), cpuMs: (ticks * 1000) / TICKS_PER_SECOND } : null;
  } catch {
    return null;
  }
}
