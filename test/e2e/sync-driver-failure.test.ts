// kb's merge driver failing partway (found as a user: a full disk while it wrote the merged
// note). git 2.39 counts any driver failure as a conflict and keeps whatever the driver left
// in the note; kb sync called it a conflict outside the review fields and said to run git
// rebase --continue, which would commit a note cut short.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kbBin, kbEnv, runKb, tempDir } from '../helpers/kb-cli.ts';
import { git, rate, shellQuote, sync, twoClones } from '../helpers/git-clones.ts';

describe("kb sync when kb's merge driver fails", () => {
  it('leaves no note cut short, takes the rebase back keeping this device\'s commits, and says to run kb sync again', () => {
    const { a, b, ids } = twoClones();
    expect(sync(a).code).toBe(0);
    expect(sync(b).code).toBe(0);
    // A lengthens note one and rates its card; B rates it too. B's pull replays B's commit onto
    // A's: the note's review fields differ, so git runs the driver, whose merged note is long.
    const long = readFileSync(join(a, 'notes/one.md'), 'utf8') + `\n${'A longer explanation of the answer. '.repeat(80)}\n`;
    writeFileSync(join(a, 'notes/one.md'), long);
    git(a, 'commit', '--quiet', '-am', 'a longer note');
    rate(a, ids[0], 'good');
    expect(sync(a).code).toBe(0);
    rate(b, ids[0], 'again');
    const noteBefore = readFileSync(join(b, 'notes/one.md'), 'utf8');
    const headBefore = git(b, 'rev-parse', 'HEAD').trim();
    // The driver runs with no room to write more than 1 KiB (ulimit -f: its writes fail
    // partway, as on a full disk). git's environment overrides the driver kb sync installs.
    const driver = `ulimit -f 2; ${shellQuote(process.execPath)} ${shellQuote(kbBin)} merge-driver %O %A %B %P`;
    const failed = runKb(['--kb', b, 'sync'], { env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'merge.kb-review.driver', GIT_CONFIG_VALUE_0: driver } });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^kb: sync: git pull --rebase origin main: kb's merge driver failed on notes\/one\.md: the file is too large for the file system \(EFBIG on write\); the rebase it began was taken back \(git rebase --abort\), this device's commits kept: run kb sync again once that is fixed$/m,
    );
    expect(failed.stderr).not.toMatch(/--continue/);
    // No rebase left to continue; B's rating committed on B's branch, its note whole.
    expect(git(b, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(b, '.git/rebase-merge'))).toBe(false);
    expect(git(b, 'rev-parse', 'HEAD~1').trim()).toBe(headBefore);
    expect(git(b, 'log', '-1', '--format=%s')).toMatch(/^kb sync: reviews from device /);
    expect(readFileSync(join(b, 'notes/one.md'), 'utf8')).toBe(noteBefore);
    // Once the driver can write, kb sync merges both: A's longer note, both ratings.
    const synced = sync(b);
    expect(synced.code, synced.stderr).toBe(0);
    expect(readFileSync(join(b, 'notes/one.md'), 'utf8')).toContain('A longer explanation of the answer. '.repeat(80));
    expect(git(b, 'log', '--format=%s', 'origin/main')).toMatch(/a longer note/);
  }, 120_000);

  it('writes the merged note whole or not at all (kb merge-driver run by hand, as git runs it)', () => {
    const root = tempDir('kb-driver-');
    const fields = (next: string) => `---\nlast_reviewed: null\nnext_review: '${next}'\nreview_count: 0\nmastery_level: 0.0\n---\n`;
    const body = `# One\n\n${'A longer explanation of the answer. '.repeat(80)}\n`;
    writeFileSync(join(root, 'base'), fields('2025-10-01') + body);
    writeFileSync(join(root, 'theirs'), fields('2025-10-05') + body);
    const ours = `${fields('2025-10-01')}${body}and a line of ours\n`;
    writeFileSync(join(root, 'ours'), ours);
    const run = spawnSync('sh', ['-c', `ulimit -f 2; exec ${shellQuote(process.execPath)} ${shellQuote(kbBin)} merge-driver base ours theirs notes/one.md`], { cwd: root, encoding: 'utf8', env: kbEnv(tempDir('kb-home-')) });
    expect(run.stderr).toMatch(/^kb merge-driver failed on notes\/one\.md: the file is too large for the file system \(EFBIG on write\)$/m);
    expect(run.status).toBe(2);
    // git keeps %A as the note: as it was (git's copy), never cut short.
    expect(readFileSync(join(root, 'ours'), 'utf8')).toBe(ours);
    expect(readdirSync(root).sort()).toEqual(['base', 'ours', 'theirs']);
    // With room, the same merge: theirs' review fields, ours' line.
    const merged = spawnSync(process.execPath, [kbBin, 'merge-driver', 'base', 'ours', 'theirs', 'notes/one.md'], { cwd: root, encoding: 'utf8', env: kbEnv(tempDir('kb-home-')) });
    expect(merged.status, merged.stderr).toBe(0);
    expect(readFileSync(join(root, 'ours'), 'utf8')).toBe(`${fields('2025-10-05')}${body}and a line of ours\n`);
  }, 120_000);
});
