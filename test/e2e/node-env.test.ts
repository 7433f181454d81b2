// scripts/node-env.sh sourced the way a cron job or a script does it: from /bin/sh (dash on
// Debian), with a bare environment. Found as a power user: `${BASH_SOURCE[0]}` is bash's only,
// so dash stopped on "Bad substitution", fell back to $0 (the shell's own name) and put `//bin`
// (the machine's old Node) first on PATH, and kb nowhere on it.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/kb-cli.ts';

const envScript = join(repoRoot, 'scripts/node-env.sh');
// A Node >= 22 (this one) first on PATH, so that node-env.sh fetches nothing.
const bareEnv = () => ({ HOME: tempDir('kb-home-'), PATH: `${dirname(process.execPath)}:/usr/bin:/bin` });

function sourced(shell: string, script: string) {
  return spawnSync(shell, ['-c', script], { cwd: tempDir('kb-cwd-'), env: bareEnv(), encoding: 'utf8', timeout: 20_000 });
}

describe('scripts/node-env.sh', () => {
  for (const shell of ['/bin/sh', '/bin/dash', '/bin/bash']) {
    it.skipIf(!existsSync(shell))(`sourced from ${shell} (a cron job's shell) puts this checkout's kb on PATH, and nothing else before Node`, () => {
      const run = sourced(shell, `. '${envScript}' && command -v kb && node -p process.versions.node && echo "$PATH"`);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const [kb, nodeVersion, path] = run.stdout.trim().split('\n');
      expect(kb).toBe(join(repoRoot, 'bin/kb'));
      expect(Number(nodeVersion.split('.')[0])).toBeGreaterThanOrEqual(22);
      expect(path.split(':')[0]).toBe(join(repoRoot, 'bin'));
    });
  }

  it.skipIf(!existsSync('/bin/sh'))('sourced from a script run by /bin/sh: kb is found from the script, not from where the script lies', () => {
    const script = join(tempDir('kb-script-'), 'cron-job.sh');
    writeFileSync(script, `. '${envScript}'\ncommand -v kb\n`);
    const run = spawnSync('/bin/sh', [script], { cwd: tempDir('kb-cwd-'), env: bareEnv(), encoding: 'utf8', timeout: 20_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(join(repoRoot, 'bin/kb'));
  });
});
