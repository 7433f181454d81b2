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

/**
 * Files' text as committed at HEAD (`paths` from the repository's top), null for a path HEAD
 * lacks (or holds as no file). All are read by one `git cat-file --batch`: kb sync asked one
 * `git show HEAD:<path>` per note changed, three times each, and with 185 notes rated since
 * the last sync those 554 processes (each forked from kb's ~300 MB) took seconds of it.
 */
export function readAtHead(top: string, paths: readonly string[]): Map<string, string | null> {
  const texts = new Map<string, string | null>();
  // cat-file reads one name a line: a path with a line break in it is asked on its own.
  const batched = [...new Set(paths)].filter((path) => !/[\r\n]/.test(path));
  for (const path of paths) if (/[\r\n]/.test(path)) texts.set(path, showAtHead(top, path));
  if (batched.length === 0) return texts;
  const run = spawnSync('git', ['cat-file', '--batch'], {
    cwd: top,
    input: batched.map((path) => `HEAD:${path}\n`).join(''),
    maxBuffer: Infinity,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
  });
  if (run.error || run.status !== 0) {
    // Not expected; git show, one file at a time, then says what it says.
    for (const path of batched) texts.set(path, showAtHead(top, path));
    return texts;
  }
  // Each answer: "<oid> <type> <size>\n<size bytes>\n", or "<name> missing\n" (HEAD lacks it).
  const out = run.stdout;
  let at = 0;
  for (const path of batched) {
    const end = out.indexOf(0x0a, at);
    if (end < 0) throw new GitError(`git cat-file --batch: its answer for HEAD:${path} is cut short`);
    const header = /^[0-9a-f]{40,64} ([a-z]+) ([0-9]+)$/.exec(out.toString('utf8', at, end));
    at = end + 1;
    if (header === null) {
      texts.set(path, null); // "<name> missing" (or ambiguous): as git show failing
      continue;
    }
    const size = Number(header[2]);
    texts.set(path, header[1] === 'blob' ? out.toString('utf8', at, at + size) : null);
    at += size + 1;
  }
  return texts;
}

/** One file's text at HEAD by `git show`, or null when git cannot show it. */
function showAtHead(top: string, path: string): string | null {
  const head = git(top, ['show', `HEAD:${path}`], { allowFail: true });
  return head.code === 0 ? head.stdout : null;
}
