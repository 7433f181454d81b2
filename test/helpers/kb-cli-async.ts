// runKb without blocking the test's event loop, for runs that talk to a server the test
// itself serves (test/helpers/fake-openai-server.ts); and a way to send Ctrl-C mid-run.
import { spawn, type ChildProcess } from 'node:child_process';
import { kbBin, kbEnv, tempDir, type KbRun, type KbRunOptions } from './kb-cli.ts';

export function spawnKb(args: string[], options: KbRunOptions = {}): { child: ChildProcess; done: Promise<KbRun> } {
  const home = options.env?.HOME ?? tempDir('kb-home-');
  const child = spawn(process.execPath, [kbBin, ...args], {
    cwd: options.cwd ?? tempDir('kb-cwd-'),
    env: { ...kbEnv(home), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const done = new Promise<KbRun>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code: code ?? -1 });
    }),
  );
  return { child, done };
}

export function runKbAsync(args: string[], options: KbRunOptions = {}): Promise<KbRun> {
  return spawnKb(args, options).done;
}
