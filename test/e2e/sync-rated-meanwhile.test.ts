// kb sync from cron while a script (or kb review) rates cards: found as a power user, 7 syncs in
// 10 failed with git's "cannot pull with rebase: You have unstaged changes" whenever a rating
// landed between kb sync's commit and its pull (the rating's note and log line, uncommitted).
// Those changes are kb's own: kb sync commits them too and pulls again.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kbBin, tempDir } from '../helpers/kb-cli.ts';
import { git, rate, shellQuote, sync, twoClones } from '../helpers/git-clones.ts';

/** A post-commit hook in `clone` that, the first `times` commits, rates `id` as another kb would. */
function rateAfterCommits(clone: string, id: string, times: number): string {
  const count = join(tempDir('kb-hook-'), 'count');
  writeFileSync(count, '');
  writeFileSync(
    join(clone, '.git/hooks/post-commit'),
    `#!/bin/sh\n[ "$(wc -c < ${shellQuote(count)})" -ge ${times} ] && exit 0\nprintf x >> ${shellQuote(count)}\n` +
      `env -u GIT_DIR -u GIT_WORK_TREE -u GIT_INDEX_FILE ${shellQuote(process.execPath)} ${shellQuote(kbBin)} --kb ${shellQuote(clone)} rate ${id} good >&2\n`,
    { mode: 0o755 },
  );
  return count;
}

describe('kb sync while another kb rates', () => {
  it('commits a rating made between its commit and its pull, and pulls, replays and pushes it', () => {
    const { a, b, ids } = twoClones();
    expect(sync(a).code).toBe(0);
    expect(sync(b).code).toBe(0);
    rate(b, ids[0], 'good');
    const count = rateAfterCommits(b, ids[1], 1);
    const synced = sync(b);
    expect(readFileSync(count, 'utf8')).toBe('x');
    expect(synced.stderr).not.toMatch(/unstaged|kb: sync/);
    expect(synced.code).toBe(0);
    expect(synced.stdout).toMatch(/^pushed to origin\/main$/m);
    expect(git(b, 'status', '--porcelain')).toBe('');
    // Both ratings reached the other clone.
    expect(sync(a).code).toBe(0);
    expect(readFileSync(join(a, 'notes/two.md'), 'utf8')).toMatch(/review_count: 1/);
    expect(readFileSync(join(a, 'notes/one.md'), 'utf8')).toMatch(/review_count: 1/);
  });

  it('says to run it again, in its own words, when ratings keep coming', () => {
    const { a, b, ids } = twoClones();
    expect(sync(a).code).toBe(0);
    expect(sync(b).code).toBe(0);
    rate(b, ids[0], 'good');
    rateAfterCommits(b, ids[1], 100);
    const synced = sync(b);
    expect(synced.code).toBe(1);
    expect(synced.stderr).toMatch(/^kb: sync: .*kept rating.*run kb sync again/);
    expect(synced.stderr).not.toMatch(/unstaged/);
    // Nothing lost: every rating is committed or in the working tree, kb's own changes only.
    expect(existsSync(join(b, '.git/rebase-merge'))).toBe(false);
  });
});
