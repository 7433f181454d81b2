// makeFolders is kb's `mkdir -p` for the database's folder and device profiles: Node's
// recursive mkdirSync loops forever where mkdir says ENOENT under a folder that exists (/proc).
import { spawnSync } from 'node:child_process';
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeFolders } from '../../src/model/make-folders.ts';
import { repoRoot, tempDir } from '../helpers/kb-cli.ts';

function codeOf(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

describe('makeFolders', () => {
  it('makes the missing folders, and an existing one is fine', () => {
    const root = tempDir('kb-make-');
    makeFolders(join(root, 'a/b/c'));
    expect(existsSync(join(root, 'a/b/c'))).toBe(true);
    makeFolders(join(root, 'a/b/c'));
    makeFolders(root);
  });

  it("throws mkdir's error where a file or a link to nowhere stands", () => {
    const root = tempDir('kb-make-');
    writeFileSync(join(root, 'file'), 'x');
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
    expect(codeOf(() => makeFolders(join(root, 'file/x')))).toBe('ENOTDIR');
    expect(codeOf(() => makeFolders(join(root, 'dangling/x')))).toBe('EEXIST');
  });

  it.runIf(process.platform === 'linux' && existsSync('/proc/self'))('returns an error under /proc, where mkdir says ENOENT (recursive mkdirSync never returned: kb hung at 100% CPU with KB_DB=/proc/x/kb.db)', () => {
    // In a child, so that a loop fails the test by its timeout rather than stalling the run.
    const script = `import { makeFolders } from ${JSON.stringify(join(repoRoot, 'src/model/make-folders.ts'))};\ntry { makeFolders('/proc/kb-make-test/x'); } catch (error) { console.log(error.code); }`;
    const file = join(tempDir('kb-make-'), 'probe.ts');
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings', file], { encoding: 'utf8', timeout: 10_000, cwd: tmpdir() });
    expect(run.error).toBeUndefined();
    expect(run.stdout.trim()).toBe('ENOENT');
  });
});
