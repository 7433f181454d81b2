// Starts the real `kb serve` in a child process on a free loopback port and stops it with
// SIGTERM, as a user would run it.
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface KbServe {
  url: string;
  pid: number;
  /** The engine as kb serve's banner names it (backend, threads). */
  engine: string;
  stop(): Promise<number | null>;
}

export function startKbServe(args: string[]): Promise<KbServe> {
  const child: ChildProcess = spawn(process.execPath, [join(repoRoot, 'bin/kb.js'), 'serve', '--port', '0', '--quiet', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const match = /\((.*)\)\non (http:\/\/[^\s]+)/.exec(out);
      if (match) {
        resolve({
          url: match[2],
          engine: match[1],
          pid: child.pid!,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`kb serve exited (${code}): ${out}${err}`)));
  });
}
