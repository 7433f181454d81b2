// Issue #13 item 21: a cold scan writes the ids its notes lack as a batch (temp files written,
// fsynced together, then renamed; each folder fsynced once). Each note must still be replaced
// atomically on its own: kill -9 at any moment leaves every note exactly as it was or exactly
// with its id added, never half; the stray temp files go with kb doctor --fix and the next
// scan finishes the job.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kbBin, repoRoot, runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { note } from './scan-fixtures.ts';

const NOTES = 600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function notePaths(root: string): string[] {
  return ['a', 'b', 'c'].flatMap((folder) => readdirSync(join(root, 'notes', folder)).map((name) => join('notes', folder, name)));
}

/** Runs kb scan and kills it with SIGKILL once `ready` says so (or when it ends by itself). */
async function killScanWhen(root: string, ready: () => boolean): Promise<void> {
  const home = tempDir('kb-home-');
  const child = spawn(process.execPath, [kbBin, '--kb', root, 'scan'], {
    stdio: 'ignore',
    env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: join(home, 'data'), TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json') },
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let running = true;
  void exited.then(() => (running = false));
  while (running && !ready()) await sleep(2);
  child.kill('SIGKILL');
  await exited;
}

describe('kb scan killed while writing ids', () => {
  it('leaves every note old or new, never half; doctor --fix and the next scan finish the job', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < NOTES; i++) files[`notes/${'abc'[i % 3]}/${String(i).padStart(4, '0')}.md`] = note(`Question ${i}`);
    const root = writeKb(files);
    const tempFiles = () => ['a', 'b', 'c'].some((folder) => readdirSync(join(root, 'notes', folder)).some((name) => name.endsWith('.kb-tmp')));
    const idsWritten = () => notePaths(root).filter((path) => !path.includes('.kb-tmp') && /^id: /m.test(readFileSync(join(root, path), 'utf8'))).length;

    // Killed while its temp files are being written, then while they are being renamed.
    await killScanWhen(root, tempFiles);
    await killScanWhen(root, () => idsWritten() > 0);
    for (const path of Object.keys(files)) {
      const now = readFileSync(join(root, path), 'utf8');
      if (now !== files[path]) expect(now.replace(/^id: [a-z0-9]{12}\n/m, '')).toBe(files[path]);
    }

    // The first kill came while temp files stood: doctor removes what it left.
    const fixed = runKb(['--kb', root, 'doctor', '--fix']);
    expect(fixed.stdout).toMatch(/fixed: removed notes\/[abc]\/\.\d{4}\.md\.\d+\.[0-9a-f]{8}\.kb-tmp/);
    expect(fixed.stdout).not.toMatch(/warning: .*kb-tmp/);
    const scan = runKb(['--kb', root, 'scan']);
    expect(scan.code).toBe(0);
    const ids = new Set<string>();
    for (const path of Object.keys(files)) {
      const now = readFileSync(join(root, path), 'utf8');
      const id = /^id: ([a-z0-9]{12})\n/m.exec(now)?.[1];
      expect(id, path).toBeDefined();
      ids.add(id as string);
      expect(now.replace(/^id: [a-z0-9]{12}\n/m, '')).toBe(files[path]);
    }
    expect(ids.size).toBe(NOTES);
    expect(notePaths(root).filter((path) => path.endsWith('.kb-tmp'))).toEqual([]);
  }, 120_000);
});
