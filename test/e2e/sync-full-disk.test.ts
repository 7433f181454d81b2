// kb sync on a full disk: git runs kb's merge driver on copies of a note's three versions,
// .merge_file_XXXXXX in the repository's top, and a git that dies writing them (a full disk:
// "fatal: unable to write temp-file") leaves them behind. kb sync removes the ones its own pull
// left, never one that was there before. The disk is a real tmpfs in a private mount namespace.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kbBin, repoRoot, tempDir } from '../helpers/kb-cli.ts';
import { rate, sync, twoClones } from '../helpers/git-clones.ts';

/** Whether this machine lets a test mount in a private namespace (CI does: there the test never skips). */
const canMount = spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs tmpfs /mnt']).status === 0;

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

describe('kb sync on a full disk', () => {
  it.skipIf(!canMount && !process.env.CI)("leaves none of git's merge temporary files behind, and keeps a user's of the same name", () => {
    const { a, b, ids } = twoClones();
    expect(sync(a).code).toBe(0);
    expect(sync(b).code).toBe(0);
    // Both clones rate card one: its note's review fields differ, so B's pull runs the driver.
    rate(a, ids[0], 'good');
    expect(sync(a).code).toBe(0);
    rate(b, ids[0], 'again');
    writeFileSync(join(b, '.merge_file_User01'), "the user's own file\n");
    // Once armed, the hook fills B's disk when the pull's rebase checks out the remote's side,
    // leaving `free` KiB: how much git needs before it writes its temporary files depends on
    // git, so the script tries some sizes until git dies writing one of them.
    const state = tempDir('kb-full-');
    writeFileSync(
      join(b, '.git/hooks/post-checkout'),
      `#!/bin/sh\n[ -f ${quote(join(state, 'armed'))} ] || exit 0\nrm ${quote(join(state, 'armed'))}\n` +
        `dd if=/dev/zero of=.git/filler bs=1k 2>/dev/null\ntruncate -s -"$(cat ${quote(join(state, 'free'))})"K .git/filler\nexit 0\n`,
      { mode: 0o755 },
    );
    const home = tempDir('kb-home-');
    const kb = [process.execPath, kbBin, '--kb', b, 'sync'].map(quote).join(' ');
    const script = [
      `mkdir -p ${quote(join(state, 'copy'))} && cp -a ${quote(b)}/. ${quote(join(state, 'copy'))}`,
      `mount -t tmpfs -o size=2m tmpfs ${quote(b)} && cp -a ${quote(join(state, 'copy'))}/. ${quote(b)} || exit 99`,
      `for free in 8 12 16 20 24 28 32 36 40; do`,
      `  echo "$free" > ${quote(join(state, 'free'))}; touch ${quote(join(state, 'armed'))}`,
      `  ${kb} 2> ${quote(join(state, 'stderr'))}; echo "exit $?"`,
      `  rm -f ${quote(b)}/.git/filler`,
      // A disk full sooner stops the rebase's own checkout, leaving this device's log untracked
      // (git rebase --abort then refuses to overwrite it): it is in the commit the abort restores.
      `  git -C ${quote(b)} rebase --abort 2>/dev/null || { git -C ${quote(b)} clean -fq -- reviews; git -C ${quote(b)} rebase --abort; } 2>/dev/null`,
      `  grep -q 'unable to write temp-file' ${quote(join(state, 'stderr'))} && { cat ${quote(join(state, 'stderr'))}; break; }`,
      `done`,
      `echo "files:"; ls -A ${quote(b)}`,
    ].join('\n');
    const run = spawnSync('unshare', ['-rm', 'sh', '-c', script], {
      encoding: 'utf8',
      timeout: 240_000,
      env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: join(home, 'data'), NO_COLOR: '1', TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json') },
    });
    expect(run.status, run.stderr + run.stdout).toBe(0);
    // git died writing its temporary files: kb sync said so, and took its rebase back.
    expect(run.stdout).toMatch(/^exit 1\nkb: sync: git pull --rebase origin main: fatal: unable to write temp-file: .*/m);
    const files = run.stdout.slice(run.stdout.indexOf('files:\n') + 'files:\n'.length).trim().split('\n');
    expect(files.filter((name) => name.startsWith('.merge_file_'))).toEqual(['.merge_file_User01']);
  }, 300_000);
});
