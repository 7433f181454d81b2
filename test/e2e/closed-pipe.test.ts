// `kb lab list | head -1` once ended with "internal error: write EPIPE; this is a bug in kb":
// a reader that stops early must end kb quietly, as it ends cat or git.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { kbBin, kbEnv, tempDir } from '../helpers/kb-cli.ts';

function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const home = tempDir('kb-home-');
  const child = spawn(process.execPath, [kbBin, ...args], { env: kbEnv(home), cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
  // The reader is gone before kb writes a byte: every write kb makes meets a closed pipe.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe('a closed stdout', () => {
  it.each([['lab', 'list'], ['lab', 'devices'], ['cards', '--json']])('kb %s %s stops quietly', async (...args) => {
    expect(await runWithClosedStdout(args)).toEqual({ code: 0, stderr: '' });
  });
});
