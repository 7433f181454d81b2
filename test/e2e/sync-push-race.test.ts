// kb sync's push refused because the remote moved after the pull (the other clone pushed
// meanwhile): found as a user, kb said only "error: failed to push some refs to ...". kb sync
// pulls, replays and pushes once more itself, and says plainly when the remote moved again.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kbBin, kbEnv, tempDir } from '../helpers/kb-cli.ts';
import { git, rate, shellQuote, sync, twoClones } from '../helpers/git-clones.ts';

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
      `#!/bin/sh\n[ -f ${shellQuote(once)} ] && exit 0\ntouch ${shellQuote(once)}\n` +
        `env -u GIT_DIR -u GIT_WORK_TREE -u GIT_INDEX_FILE sh -c 'cd ${shellQuote(a)} && git commit --quiet --allow-empty -m "from A meanwhile" && git push --quiet origin main' >&2\nexit 0\n`,
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

  it('says a Ctrl-C during the push keeps the commits, and to run it again (exit 130)', async () => {
    const { b, ids } = twoClones();
    rate(b, ids[0], 'good');
    const started = join(tempDir('kb-hook-'), 'started');
    git(b, 'config', 'remote.origin.receivepack', `touch ${shellQuote(started)}; sleep 30; git-receive-pack`);
    const child = spawn(process.execPath, [kbBin, '--kb', b, 'sync'], { env: kbEnv(tempDir('kb-home-')), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
    for (let i = 0; i < 400 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(started)).toBe(true);
    process.kill(-child.pid!, 'SIGINT'); // the whole process group, as a terminal sends it
    expect(await code).toBe(130);
    expect(stderr).toBe("kb: sync: git push origin main: interrupted (Ctrl-C); this clone's commits are kept: run kb sync again to push them\n");
    expect(git(b, 'log', '-1', '--format=%s')).toMatch(/^kb sync: reviews from device/);
    git(b, 'config', '--unset', 'remote.origin.receivepack');
    expect(sync(b).stdout).toMatch(/^pushed to origin\/main$/m);
  }, 60_000);
});
