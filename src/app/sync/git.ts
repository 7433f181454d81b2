// Running git for kb sync and the merge driver: one place that spawns it and reads its answer.
import { spawnSync } from 'node:child_process';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
  /** The signal git died of (SIGINT: a Ctrl-C, which reaches kb's whole process group), or null. */
  signal: NodeJS.Signals | null;
}

export class GitError extends Error {
  /** Git was stopped by Ctrl-C. */
  readonly interrupted: boolean;

  constructor(message: string, options: { interrupted?: boolean } = {}) {
    super(message);
    this.name = 'GitError';
    this.interrupted = options.interrupted ?? false;
  }
}

/** Runs git in `cwd`; throws GitError (naming the command and git's first line of complaint) unless `allowFail`. */
export function git(cwd: string, args: readonly string[], options: { allowFail?: boolean } = {}): GitResult {
  // No cap on what git prints (spawnSync's is 1 MiB): the merge driver reads a merged note from it.
  const run = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: Infinity, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  if (run.error) throw new GitError(`git ${args[0]}: ${run.error.message} (is git installed?)`);
  const result = { code: run.status ?? 1, stdout: run.stdout, stderr: run.stderr, signal: run.signal };
  if (result.code !== 0 && !options.allowFail) {
    throw new GitError(`git ${args.join(' ')}: ${gitComplaint(result)}`, { interrupted: result.signal === 'SIGINT' });
  }
  return result;
}

/**
 * Why git failed, in one line: its first `fatal:` or `error:` line, else its first line. A pull
 * prints the fetch's progress first ("From <remote>"), which said nothing of a full disk.
 */
export function gitComplaint(result: GitResult): string {
  if (result.signal === 'SIGINT') return 'interrupted (Ctrl-C)';
  const lines = (result.stderr || result.stdout).split(/[\r\n]+/).map((line) => line.trim()).filter((line) => line !== '');
  return lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? `exit ${result.code}`;
}
