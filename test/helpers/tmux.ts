// Drives a real kb TUI command (`kb review`, `kb quiz`) in a detached tmux session, as a user
// at a terminal would. Each driver has its own tmux server socket, so tests never touch
// anyone else's sessions.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { kbBin, repoRoot, tempDir } from './kb-cli.ts';

/**
 * Generous on purpose: the full suite runs TUI tests next to CPU-heavy engine tests on two
 * cores, and kb's first start compiles its sources. Tests that use this driver should set a
 * test timeout of TMUX_TEST_TIMEOUT_MS.
 */
export const TMUX_WAIT_TIMEOUT_MS = 60_000;
export const TMUX_TEST_TIMEOUT_MS = 120_000;

export interface TmuxOptions {
  /**
   * How often waitFor looks at the screen. Each look spawns tmux; polling faster than this
   * starves kb itself on a loaded machine. A benchmark may ask for finer polling.
   */
  pollMs?: number;
}

export interface TerminalSize {
  columns: number;
  rows: number;
}

type ScreenTest = string | RegExp | ((screen: string) => boolean);

const noTmuxClient = () => ({ ...process.env, TMUX: '' });
const shellQuote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A terminal's environment for kb: fresh data and config homes, a colour terminal, an editor that returns at once. */
function terminalEnv(): Record<string, string> {
  const home = tempDir('kb-home-');
  return {
    HOME: home,
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json'),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TERM: 'xterm-256color',
    EDITOR: 'true',
  };
}

/** The line of the four ratings under a revealed card (kb review). */
const RATINGS_SHOWN = /1 Again .*4 Easy/;

export class TmuxKb {
  readonly socket = `kb-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  readonly session = 'kb';
  readonly pollMs: number;
  private command = 'kb';

  constructor(options: TmuxOptions = {}) {
    this.pollMs = options.pollMs ?? 50;
  }

  /** Starts `kb --kb root <command> ...args` in a terminal of the given size (100 x 30 by default). */
  start(root: string, command: string, args: string[] = [], size: TerminalSize = { columns: 100, rows: 30 }): void {
    this.command = `kb ${command}`;
    // exec: the pane's process is kb itself, so a test can kill exactly it. Run as the `kb`
    // command is (its #! line sets Node's flags), with the Node of PATH as node-env.sh puts it.
    this.startProgram([kbBin, '--kb', root, command, ...args], terminalEnv(), size);
  }

  /**
   * Starts `kb --kb root ...args` under a shell that prints `exit=N` when kb ends and keeps
   * the pane open, so a test can read kb's last screen and its exit status. `env` is added to
   * the terminal's (an EDITOR of the test's own, say).
   */
  startWithStatus(root: string, args: string[], size?: TerminalSize, env: Record<string, string> = {}): void {
    this.command = `kb ${args[0] ?? ''}`;
    const kb = [kbBin, '--kb', root, ...args].map(shellQuote).join(' ');
    this.startProgram(['sh', '-c', `${kb}; echo "exit=$?"; sleep 600`], { ...terminalEnv(), ...env }, size);
  }

  /** Starts an interactive shell with job control (its prompt: `bash-<version>$`, or `#` as root), for a test to type kb commands into (Ctrl-Z, fg). */
  startShell(size?: TerminalSize): void {
    this.command = 'bash';
    this.startProgram(['bash', '--norc', '--noprofile', '-i'], terminalEnv(), size);
  }

  /** Starts any program in the terminal (bench/review.ts times a bare Node this way). */
  startProgram(argv: string[], env: Record<string, string>, size: TerminalSize = { columns: 100, rows: 30 }): void {
    const shellCommand = `exec ${argv.map(shellQuote).join(' ')}`;
    const envFlags = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
    this.tmux(['new-session', '-d', '-s', this.session, '-x', String(size.columns), '-y', String(size.rows), ...envFlags, shellCommand]);
  }

  tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env: noTmuxClient() });
  }

  screen(): string {
    return this.tmux(['capture-pane', '-p', '-t', this.session]);
  }

  send(...keys: string[]): void {
    this.tmux(['send-keys', '-t', this.session, ...keys]);
  }

  /** Types text literally (no key-name lookup: "Enter" would be the letters). */
  type(text: string): void {
    this.tmux(['send-keys', '-t', this.session, '-l', text]);
  }

  pid(): number {
    return Number(this.tmux(['display-message', '-p', '-t', this.session, '#{pane_pid}']).trim());
  }

  running(): boolean {
    return spawnSync('tmux', ['-L', this.socket, 'has-session', '-t', this.session], { env: noTmuxClient() }).status === 0;
  }

  /** On kb review's card: Space shows the answer, then `grade` (1-4) rates it once the ratings are shown. */
  async revealAndRate(grade: '1' | '2' | '3' | '4'): Promise<void> {
    this.send('Space');
    await this.waitFor(RATINGS_SHOWN);
    this.send(grade);
  }

  /** Waits until the screen shows `text` (or passes the test) and returns that screen. */
  async waitFor(text: ScreenTest, timeoutMs = TMUX_WAIT_TIMEOUT_MS): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    while (Date.now() < deadline) {
      screen = this.running() ? this.screen() : '';
      const shown = typeof text === 'string' ? screen.includes(text) : text instanceof RegExp ? text.test(screen) : text(screen);
      if (shown) return screen;
      await sleep(this.pollMs);
    }
    throw new Error(`timed out waiting for ${String(text)}; the screen was:\n${screen}`);
  }

  async waitForExit(timeoutMs = TMUX_WAIT_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.running()) {
      if (Date.now() > deadline) throw new Error(`${this.command} did not exit; the screen was:\n${this.screen()}`);
      await sleep(this.pollMs);
    }
  }

  /**
   * Keeps this instance's tmux server up between programs, so that one started after another
   * pays no server start: like a terminal that is already open (bench/review.ts times launches).
   */
  keepServer(): void {
    this.tmux(['new-session', '-d', '-s', `keeper-${this.session}`, 'sleep 3600']);
  }

  stop(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { env: noTmuxClient() });
  }
}
