// Runs the real kb CLI in a child process, as a user would, for end-to-end tests.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const kbBin = join(repoRoot, 'bin/kb.js');

export interface KbRun {
  stdout: string;
  stderr: string;
  code: number;
}

export interface KbRunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
}

/** A temporary folder; each test gets its own data and config homes so nothing leaks. */
export function tempDir(prefix = 'kb-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * The environment of a kb run as a script: its own data and config homes under `home`, the
 * shared cache (kb's WebAssembly kernels are built once), no colours.
 */
export function kbEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? home, '.cache'),
    XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR,
    // The suite's time zone (test/setup-time-zone.ts): kb must agree with the test on what day it is.
    TZ: process.env.TZ,
    TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json'),
    NO_COLOR: '1',
  };
}

/** How runKb and runKbAtTerminal spawn: a fresh HOME and cwd unless given, stdin from `input`. */
function spawnOptions(options: KbRunOptions) {
  return {
    cwd: options.cwd ?? tempDir('kb-cwd-'),
    input: options.input ?? '',
    encoding: 'utf8' as const,
    timeout: options.timeoutMs ?? 60_000,
    env: { ...kbEnv(options.env?.HOME ?? tempDir('kb-home-')), ...options.env },
  };
}

export function runKb(args: string[], options: KbRunOptions = {}): KbRun {
  const result = spawnSync(process.execPath, [kbBin, ...args], spawnOptions(options));
  if (result.error) throw result.error;
  return { stdout: result.stdout, stderr: result.stderr, code: result.status ?? -1 };
}

/** Writes a knowledge base from a map of relative paths to contents; returns its root. */
export function writeKb(files: Record<string, string | Buffer>): string {
  const root = tempDir('kb-base-');
  for (const sub of ['notes', 'cards', 'lab']) mkdirSync(join(root, sub), { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** The labs kb ships (its own lab/ folder), which every knowledge base can run behind its own. */
export function bundledLabNames(): string[] {
  return readdirSync(join(repoRoot, 'lab')).filter((name) => name.endsWith('.md')).map((name) => name.slice(0, -3)).sort();
}

/** `own` lab names with kb's bundled ones, as kb lists them. */
export function withBundledLabs(own: string[]): string[] {
  return [...new Set([...own, ...bundledLabNames()])].sort();
}

/** `kb ARGS` on a terminal `columns` wide (util-linux script): its raw output, stdout and stderr together. */
export function runKbOnTerminal(args: string[], columns = 100): string {
  const command = `stty cols ${columns}; ${[process.execPath, kbBin, ...args].map((arg) => `'${arg}'`).join(' ')}`;
  const run = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', env: kbEnv(tempDir('kb-home-')), timeout: 60_000 });
  if (run.status !== 0) throw new Error(`kb ${args.join(' ')} exited ${run.status}: ${run.stdout}${run.stderr}`);
  return run.stdout;
}

/**
 * `kb ARGS` as runKb runs it, but with a terminal (a pseudo-terminal from util-linux script) as
 * its stdin and stdout, for what needs one without being a screen (kb add --edit). stderr is
 * kept apart (a file), as runKb's; stdout comes back with the terminal's \r\n as \n.
 */
export function runKbAtTerminal(args: string[], options: KbRunOptions = {}): KbRun {
  const stderrFile = join(tempDir('kb-stderr-'), 'stderr');
  const result = spawnSync('script', terminalCommand([process.execPath, kbBin, ...args], stderrFile), spawnOptions(options));
  if (result.error) throw result.error;
  return { stdout: result.stdout.replaceAll('\r\n', '\n'), stderr: readFileSync(stderrFile, 'utf8'), code: result.status ?? -1 };
}

/**
 * The arguments of util-linux `script` that run `argv` on a new pseudo-terminal (stdin, stdout)
 * with its stderr written to `stderrFile`; script exits with the command's status.
 */
export function terminalCommand(argv: readonly string[], stderrFile: string): string[] {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  return ['-qec', `exec ${argv.map(quote).join(' ')} 2>${quote(stderrFile)}`, '/dev/null'];
}
