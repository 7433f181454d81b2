// kb sync's push refused because the remote moved after the pull (the other clone pushed
// meanwhile): found as a user, kb said only "error: failed to push some refs to ...". kb sync
// pulls, replays and pushes once more itself, and says plainly when the remote moved again.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/kb-cli.ts';
import { git, rate, sync, twoClones } from '../helpers/git-clones.ts';

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

describe('kb sync when the remote moves while it pushes', () => {
  it('pulls and pushes once more itself, keeping both clones\' commits', () => {
    const { a, b, ids } = twoClones();
    expect(sync(a).code).toBe(0);
    expect(sync(b).code).toBe(0);
    expect(sync(a).code).toBe(0);
    rate(b, ids[0], 'good');
    // The first time B pushes, A pushes a commit first (git's own variables unset: they name B).
    const once = join(tempDir('kb-hook-'), 'pushed');
    writeFileSync(
      join(b, '.git/hooks/pre-push'),
      `#!/bin/sh\n[ -f ${quote(once)} ] && exit 0\ntouch ${quote(once)}\n` +
        `env -u GIT_DIR -u GIT_WORK_TREE -u GIT_INDEX_FILE sh -c 'cd ${quote(a)} && git commit --quiet --allow-empty -m "from A meanwhile" && git push --quiet origin main' >&2\nexit 0\n`,
      { mode: 0o755 },
    );
    const synced = sync(b);
    expect(existsSync(once)).toBe(true);
    expect(synced.stderr).toBe('');
    expect(synced.code).toBe(0);
    expect(synced.stdout).toMatch(/^pushed to origin\/main$/m);
    git(a, 'fetch', '--quiet', 'origin');
    const subjects = git(a, 'log', '--format=%s', 'origin/main', '-2').trim().split('\n');
    expect(subjects[0]).toMatch(/^kb sync: reviews from device \w{8}/);
    expect(subjects[1]).toBe('from A meanwhile');
    expect(git(b, 'status', '--porcelain')).toBe('');
  });

  it('says to run it again when the remote moved once more', () => {
    const { a, b, ids } = twoClones();
    expect(sync(a).code).toBe(0);
    expect(sync(b).code).toBe(0);
    rate(b, ids[0], 'good');
    // B pulls from a copy the remote has moved past, so each push finds commits it lacks.
    const stale = join(tempDir('kb-stale-'), 'stale.git');
    git(a, 'clone', '--quiet', '--bare', git(a, 'remote', 'get-url', 'origin').trim(), stale);
    git(a, 'commit', '--quiet', '--allow-empty', '-m', 'from A meanwhile');
    git(a, 'push', '--quiet', 'origin', 'main');
    const origin = git(b, 'remote', 'get-url', 'origin').trim();
    git(b, 'remote', 'set-url', 'origin', stale);
    git(b, 'remote', 'set-url', '--push', 'origin', origin);
    const failed = sync(b);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe('kb: sync: git push origin main: the remote received other commits again while kb sync pulled and pushed: run kb sync again\n');
  });
});
