// kb serve as a test starts it: the real CLI in a child process on a free loopback port,
// ready once it has printed its URL and curl line. stopKbServes (afterEach) kills what is left.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { kbBin, kbEnv, tempDir } from './kb-cli.ts';

export interface Running {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: Running[] = [];

export function startKbServe(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [kbBin, 'serve', '--port', '0', ...args], { env: kbEnv(tempDir('kb-home-')), cwd: tempDir('kb-cwd-') });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kb serve did not start: ${out}${err}`)), 30_000);
    const check = () => {
      // Ready once the start-up lines are out: the URL, the curl example and the lab command.
      const match = /\non (http:\/\/127\.0\.0\.1:\d+).*\ntry: [^]*?\nor a lab: .*\n/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off('data', check);
      const running = { child, url: match[1], stdout: () => out, stderr: () => err, exited };
      started.push(running);
      resolve(running);
    };
    child.stdout.on('data', check);
    void exited.then(() => reject(new Error(`kb serve exited: ${out}${err}`)));
  });
}

export function stopKbServes(): void {
  for (const running of started.splice(0)) if (running.child.exitCode === null) running.child.kill('SIGKILL');
}
