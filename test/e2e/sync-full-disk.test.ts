// kb sync on a full disk: git runs kb's merge driver on copies of a note's three versions,
// .merge_file_XXXXXX in the repository's top, and a git that dies writing them (a full disk:
// "fatal: unable to write temp-file") leaves them behind. kb sync removes the ones its own pull
// left, never one that was there before. The disk is a real tmpfs in a private mount namespace.
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kbBin, repoRoot, runKb, tempDir } from '../helpers/kb-cli.ts';
import { divergedClones, git, rate, shellQuote, sync } from '../helpers/git-clones.ts';

/** Whether this machine lets a test mount in a private namespace (CI does: there the test never skips). */
const canMount = spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs tmpfs /mnt']).status === 0;

/** `script` run by sh in a mount namespace of its own (its tmpfs mounts go with it), kb's homes under `home`. */
function inMountNamespace(script: string, home: string, timeout: number) {
  return spawnSync('unshare', ['-rm', 'sh', '-c', script], {
    encoding: 'utf8',
    timeout,
    env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: join(home, 'data'), NO_COLOR: '1', TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json') },
  });
}

describe('kb sync on a full disk', () => {
  it.skipIf(!canMount && !process.env.CI)("leaves none of git's merge temporary files behind, and keeps a user's of the same name", () => {
    // Both clones rate card one: its note's review fields differ, so B's pull runs the driver.
    const { b } = divergedClones(0);
    writeFileSync(join(b, '.merge_file_User01'), "the user's own file\n");
    // Once armed, the hook fills B's disk when the pull's rebase checks out the remote's side,
    // leaving `free` KiB: how much git needs before it writes its temporary files depends on
    // git, so the script tries some sizes until git dies writing one of them.
    const state = tempDir('kb-full-');
    writeFileSync(
      join(b, '.git/hooks/post-checkout'),
      `#!/bin/sh\n[ -f ${shellQuote(join(state, 'armed'))} ] || exit 0\nrm ${shellQuote(join(state, 'armed'))}\n` +
        `dd if=/dev/zero of=.git/filler bs=1k 2>/dev/null\ntruncate -s -"$(cat ${shellQuote(join(state, 'free'))})"K .git/filler\nexit 0\n`,
      { mode: 0o755 },
    );
    const home = tempDir('kb-home-');
    const kb = [process.execPath, kbBin, '--kb', b, 'sync'].map(shellQuote).join(' ');
    const script = [
      `mkdir -p ${shellQuote(join(state, 'copy'))} && cp -a ${shellQuote(b)}/. ${shellQuote(join(state, 'copy'))}`,
      `mount -t tmpfs -o size=2m tmpfs ${shellQuote(b)} && cp -a ${shellQuote(join(state, 'copy'))}/. ${shellQuote(b)} || exit 99`,
      `for free in 8 12 16 20 24 28 32 36 40; do`,
      `  echo "$free" > ${shellQuote(join(state, 'free'))}; touch ${shellQuote(join(state, 'armed'))}`,
      `  ${kb} 2> ${shellQuote(join(state, 'stderr'))}; echo "exit $?"`,
      `  rm -f ${shellQuote(b)}/.git/filler`,
      // A disk full sooner stops the rebase's own checkout, leaving this device's log untracked
      // (git rebase --abort then refuses to overwrite it): it is in the commit the abort restores.
      `  git -C ${shellQuote(b)} rebase --abort 2>/dev/null || { git -C ${shellQuote(b)} clean -fq -- reviews; git -C ${shellQuote(b)} rebase --abort; } 2>/dev/null`,
      `  grep -q 'unable to write temp-file' ${shellQuote(join(state, 'stderr'))} && { cat ${shellQuote(join(state, 'stderr'))}; break; }`,
      `done`,
      `echo "files:"; ls -A ${shellQuote(b)}`,
    ].join('\n');
    const run = inMountNamespace(script, home, 240_000);
    expect(run.status, run.stderr + run.stdout).toBe(0);
    // git died writing its temporary files: kb sync said so, and took its rebase back.
    expect(run.stdout).toMatch(/^exit 1\nkb: sync: git pull --rebase origin main: fatal: unable to write temp-file: .*/m);
    const files = run.stdout.slice(run.stdout.indexOf('files:\n') + 'files:\n'.length).trim().split('\n');
    expect(files.filter((name) => name.startsWith('.merge_file_'))).toEqual(['.merge_file_User01']);
  }, 300_000);

  // Found as a user: the disk full during the rebase's own checkout, git moved HEAD and the index
  // to the remote's commit and left the files, this device's log untracked: git rebase --abort
  // refused to overwrite it even once space was freed, and the next kb sync said to finish with
  // git rebase --continue (which drops this device's commit).
  it.skipIf(!canMount && !process.env.CI)('takes back a rebase the full disk stopped midway on the next kb sync, never saying --continue', () => {
    const { a, b, ids } = divergedClones(1);
    // The hook fills B's disk whole when the pull's rebase checks out the remote's side.
    writeFileSync(join(b, '.git/hooks/post-checkout'), '#!/bin/sh\n[ -f .git/armed ] || exit 0\nrm .git/armed\ndd if=/dev/zero of=.git/filler bs=1k 2>/dev/null\nexit 0\n', { mode: 0o755 });
    const state = tempDir('kb-full-');
    const home = tempDir('kb-home-');
    const kb = [process.execPath, kbBin, '--kb', b, 'sync'].map(shellQuote).join(' ');
    const script = [
      `mkdir -p ${shellQuote(join(state, 'copy'))} && cp -a ${shellQuote(b)}/. ${shellQuote(join(state, 'copy'))}`,
      `mount -t tmpfs -o size=2m tmpfs ${shellQuote(b)} && cp -a ${shellQuote(join(state, 'copy'))}/. ${shellQuote(b)} || exit 99`,
      `touch ${shellQuote(b)}/.git/armed`,
      `${kb}; echo "exit $?"`,
      `rm ${shellQuote(b)}/.git/filler`,
      `echo "status:"; git -C ${shellQuote(b)} status --porcelain --untracked-files=all; echo "end"`,
      `${kb}; echo "exit $?"`,
      `echo "status:"; git -C ${shellQuote(b)} status --porcelain --untracked-files=all; echo "end"`,
    ].join('\n');
    const run = inMountNamespace(script, home, 120_000);
    expect(run.status, run.stderr + run.stdout).toBe(0);
    const [first, second] = [...run.stdout.matchAll(/^status:\n([\s\S]*?)^end$/gm)].map((match) => match[1]);
    const exits = [...run.stdout.matchAll(/^exit (\d+)$/gm)].map((match) => Number(match[1]));
    // The full disk stopped the rebase, and the abort too: kb sync says to run it again, never
    // --continue. What it left: the files of B's commit on the remote's, B's log untracked.
    expect(exits, run.stderr).toEqual([1, 0]);
    expect(first).toMatch(/^\?\? reviews\/.*\.jsonl$/m);
    const said = run.stderr.split('\n').filter((line) => line.startsWith('kb: sync:'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^kb: sync: git pull --rebase origin main: .*; the rebase it began could not be taken back yet: .*run kb sync again once that is fixed: it takes the rebase back \(not git rebase --continue: it would drop this device's commit\)$/);
    expect(said[0].replaceAll('not git rebase --continue', '')).not.toMatch(/--continue/);
    // Space freed, kb sync took the rebase back itself, then pulled and pushed B's rating.
    expect(second).toBe('');
    // (B's tmpfs is gone with its namespace: what it pushed is seen from A.)
    expect(sync(a).code).toBe(0);
    expect(git(a, 'log', '--format=%s', 'origin/main').split('\n').filter((subject) => subject.startsWith('kb sync: reviews from device'))).toHaveLength(2);
    expect(readdirSync(join(a, 'reviews'))).toHaveLength(2);
    // Both ratings replayed on A: card one's (A's) and card two's (B's).
    const cards = JSON.parse(runKb(['--kb', a, 'cards', '--json']).stdout) as Array<{ id: string; reps: number }>;
    expect(ids.slice(0, 2).map((id) => cards.find((card) => card.id === id)?.reps)).toEqual([1, 1]);
  }, 180_000);
});
