// kb sync only runs on a branch with no git operation half done: it must never commit into a
// paused rebase, nor push a detached HEAD (git would create a remote branch named HEAD).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kbBin, kbEnv, runKb, tempDir } from '../helpers/kb-cli.ts';
import { git, rate, sync, twoClones } from '../helpers/git-clones.ts';

/** Both clones edit notes/one.md's text; A pushes, so B's kb sync stops in a rebase on the conflict. */
function conflictOnB(): { a: string; b: string } {
  const { a, b } = twoClones();
  expect(sync(a).code).toBe(0);
  expect(sync(b).code).toBe(0);
  for (const [root, words] of [[a, 'from A'], [b, 'from B']] as const) {
    writeFileSync(join(root, 'notes/one.md'), readFileSync(join(root, 'notes/one.md'), 'utf8').replace('The answer to one', `The answer to one, ${words}`));
    git(root, 'commit', '--quiet', '-am', `edit ${words}`);
  }
  expect(sync(a).code).toBe(0);
  expect(sync(b).code).toBe(1);
  return { a, b };
}

function remoteBranches(clone: string): string[] {
  return git(clone, 'ls-remote', '--heads', 'origin').trim().split('\n').map((line) => line.split('\t')[1]);
}

describe('kb sync and the state of git', () => {
  it('labels a conflict as git does: HEAD for the remote side, the commit being replayed for the user\'s own', () => {
    const { b } = conflictOnB();
    const text = readFileSync(join(b, 'notes/one.md'), 'utf8');
    const replayed = git(b, 'log', '-1', '--format=%h', 'ORIG_HEAD').trim();
    expect(text).toMatch(/^<<<<<<< HEAD\n.*from A.*\n=======\n.*from B.*\n>>>>>>> (\w+) \(edit from B\)$/m);
    expect(/^>>>>>>> (\w+) /m.exec(text)![1]).toBe(replayed.slice(0, 7));
  });

  it('refuses while a rebase is paused, even after the conflict was resolved and committed', () => {
    const { b } = conflictOnB();
    // The user resolves the conflict and commits instead of git rebase --continue.
    writeFileSync(join(b, 'notes/one.md'), readFileSync(join(b, 'notes/one.md'), 'utf8').replace(/<<<<<<< .*\n|=======\n|>>>>>>> .*\n/g, ''));
    git(b, 'commit', '--quiet', '-am', 'resolved');
    const refused = sync(b);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('kb: sync: a rebase is in progress: finish it with git rebase --continue (or --abort)\n');
    expect(remoteBranches(b)).toEqual(['refs/heads/main']);
    // Finished, kb sync goes on as usual.
    git(b, '-c', 'core.editor=true', 'rebase', '--continue');
    const synced = sync(b);
    expect(synced.code, synced.stderr).toBe(0);
    expect(remoteBranches(b)).toEqual(['refs/heads/main']);
  });

  it('refuses on a detached HEAD, pushing nothing', () => {
    const { a } = twoClones();
    git(a, 'checkout', '--quiet', '--detach');
    const refused = sync(a);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^kb: sync: HEAD is detached \(on no branch\): .*git switch/);
    expect(remoteBranches(a)).toEqual(['refs/heads/main']);
  });

  // Found as a user: a full disk stopped git pull --rebase midway, and git went back to the
  // branch leaving the remote's files in the working tree: the other device's log with its new
  // lines, this device's without its last rating. The next kb sync took both for its own
  // appends and committed them, the rating's line removed from the log every clone replays.
  it('refuses review logs changed other than by this device\'s appends, committing nothing', () => {
    const { a, b, ids } = twoClones();
    rate(a, ids[2], 'good');
    expect(sync(a).code).toBe(0);
    expect(sync(b).code).toBe(0);
    rate(a, ids[1], 'good');
    expect(sync(a).code).toBe(0);
    rate(b, ids[0], 'good');
    git(b, 'add', '-A');
    git(b, 'commit', '--quiet', '-m', 'B reviews');
    // What the stopped rebase left: the remote's logs checked out over the branch's, unstaged.
    git(b, 'fetch', '--quiet', 'origin');
    git(b, 'checkout', 'origin/main', '--', 'reviews');
    git(b, 'reset', '--quiet');
    const logs = () => git(b, 'status', '--porcelain', '--', 'reviews');
    const damaged = logs();
    const head = git(b, 'rev-parse', 'HEAD');
    const refused = sync(b);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^kb: sync: reviews\/[\w-]+\.jsonl changed other than by kb's appends/m);
    expect(refused.stderr).toMatch(/git checkout -- reviews\/[\w-]+\.jsonl/);
    expect(git(b, 'rev-parse', 'HEAD')).toBe(head);
    expect(logs()).toBe(damaged);
    // Put back as the message says, kb sync goes through and B's rating reaches A.
    git(b, 'checkout', '--', 'reviews');
    const synced = sync(b);
    expect(synced.code, synced.stderr).toBe(0);
    expect(sync(a).code).toBe(0);
    const cards = JSON.parse(runKb(['--kb', a, 'cards', '--json']).stdout) as Array<{ id: string; reps: number }>;
    expect(cards.map((card) => card.reps)).toEqual([1, 1, 1]);
  });

  // Found as a user (a full disk): git fetch's progress comes first on stderr, and kb said only
  // "git pull --rebase origin main: From /tmp/.../remote", not what went wrong.
  it('says why git pull failed, not the first line of its progress', () => {
    const { a, b, ids } = twoClones();
    rate(a, ids[0], 'good');
    expect(sync(a).code).toBe(0);
    writeFileSync(join(b, '.git/hooks/pre-rebase'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const failed = sync(b);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^kb: sync: git pull --rebase origin main: fatal: .*pre-rebase hook refused/m);
  });

  // Found as a user: a full disk stopped git pull --rebase after it had begun replaying this
  // device's commit ("fatal: unable to write temp-file"), leaving the rebase in progress; the next
  // kb sync said to finish it with git rebase --continue, which ended it without that commit:
  // the rating's line gone from the log, kept only in this clone's database. kb sync began the
  // rebase, so it takes it back. (A hook stands in for the full disk: it refuses to move HEAD
  // once the rebase has picked the commit.)
  it('takes back a rebase its pull left half done, keeping this device\'s commit', () => {
    const { a, b, ids } = twoClones();
    rate(a, ids[0], 'good');
    expect(sync(a).code).toBe(0);
    rate(b, ids[1], 'good');
    const hook = '#!/bin/sh\n[ "$1" = prepared ] && [ -s "$(git rev-parse --git-dir)/rebase-merge/done" ] && grep -q " HEAD$" && { echo "fatal: no space left (a stand-in)" >&2; exit 1; }\nexit 0\n';
    writeFileSync(join(b, '.git/hooks/reference-transaction'), hook, { mode: 0o755 });
    const failed = sync(b);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^kb: sync: git pull --rebase origin main: fatal: .*; the rebase it began was taken back \(git rebase --abort\)/m);
    expect(git(b, 'status')).not.toMatch(/rebase in progress/);
    expect(git(b, 'log', '-1', '--format=%s')).toMatch(/^kb sync: reviews from device/);
    rmSync(join(b, '.git/hooks/reference-transaction'));
    expect(sync(b).code).toBe(0);
    expect(sync(a).code).toBe(0);
    const cards = JSON.parse(runKb(['--kb', a, 'cards', '--json']).stdout) as Array<{ id: string; reps: number }>;
    expect(cards.find((card) => card.id === ids[1])?.reps).toBe(1);
  });

  // Found as a user: Ctrl-C while kb sync's pull was rebasing ended kb and git with nothing
  // said, and left the rebase half done for the next kb sync to refuse.
  it('takes back its rebase on Ctrl-C and says so (exit 130)', async () => {
    const { a, b, ids } = twoClones();
    rate(a, ids[0], 'good');
    expect(sync(a).code).toBe(0);
    rate(b, ids[1], 'good');
    const started = join(tempDir('kb-hook-'), 'started');
    writeFileSync(join(b, '.git/hooks/post-checkout'), `#!/bin/sh\ntouch '${started}'\nsleep 30\n`, { mode: 0o755 });
    const { code, stderr } = await ctrlCOnceStarted(b, started);
    expect(code).toBe(130);
    expect(stderr).toMatch(/^kb: sync: git pull --rebase origin main: interrupted \(Ctrl-C\); the rebase it began was taken back \(git rebase --abort\)/m);
    expect(git(b, 'status')).not.toMatch(/rebase in progress/);
    expect(git(b, 'log', '-1', '--format=%s')).toMatch(/^kb sync: reviews from device/);
    rmSync(join(b, '.git/hooks/post-checkout'));
    expect(sync(b).code).toBe(0);
    expect(sync(a).code).toBe(0);
    const cards = JSON.parse(runKb(['--kb', a, 'cards', '--json']).stdout) as Array<{ id: string; reps: number }>;
    expect(cards.find((card) => card.id === ids[1])?.reps).toBe(1);
  }, 60_000);

  it('says what a Ctrl-C stopped while it asked the remote, pushing nothing', async () => {
    const { a, b, ids } = twoClones();
    expect(sync(a).code).toBe(0);
    rate(b, ids[1], 'good');
    const started = join(tempDir('kb-hook-'), 'started');
    git(b, 'config', 'remote.origin.uploadpack', `touch '${started}'; sleep 30; git-upload-pack`);
    const remoteHead = git(a, 'ls-remote', 'origin', 'main');
    const { code, stderr } = await ctrlCOnceStarted(b, started);
    expect(code).toBe(130);
    expect(stderr).toMatch(/^kb: sync: git ls-remote origin: interrupted \(Ctrl-C\); nothing was pulled or pushed: run kb sync again\n$/);
    expect(git(a, 'ls-remote', 'origin', 'main')).toBe(remoteHead);
  }, 60_000);
});

/** kb sync on `clone`, and a Ctrl-C to its whole process group (as a terminal sends it) once `started` exists. */
async function ctrlCOnceStarted(clone: string, started: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [kbBin, '--kb', clone, 'sync'], {
    env: kbEnv(tempDir('kb-home-')),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // a process group of its own, as a terminal's foreground job
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
  for (let i = 0; i < 400 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 50));
  expect(existsSync(started)).toBe(true);
  process.kill(-child.pid!, 'SIGINT');
  return { code: await code, stderr };
}
