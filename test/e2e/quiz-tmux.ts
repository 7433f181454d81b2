// Drives the real `kb quiz` in a detached tmux session (its own server socket, so tests
// never touch anyone else's sessions).
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { kbBin, repoRoot, tempDir } from '../helpers/kb-cli.ts';

export class TmuxQuiz {
  readonly socket = `kb-quiz-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  readonly session = 'kb';

  /** Starts `kb --kb root quiz ...args` in a 100 x 30 terminal. */
  start(root: string, args: string[]): void {
    const home = tempDir('kb-home-');
    const env: Record<string, string> = {
      HOME: home,
      XDG_DATA_HOME: join(home, '.local/share'),
      XDG_CONFIG_HOME: join(home, '.config'),
      TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json'),
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      TERM: 'xterm-256color',
    };
    const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
    const command = `exec ${[process.execPath, kbBin, '--kb', root, 'quiz', ...args].map(quote).join(' ')}`;
    this.tmux(['new-session', '-d', '-s', this.session, '-x', '100', '-y', '30', ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), command]);
  }

  tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env: { ...process.env, TMUX: '' } });
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

  running(): boolean {
    return spawnSync('tmux', ['-L', this.socket, 'has-session', '-t', this.session], { env: { ...process.env, TMUX: '' } }).status === 0;
  }

  /** Waits until the screen shows `text` (kb's first start compiles its sources: be patient). */
  async waitFor(text: string | RegExp, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    while (Date.now() < deadline) {
      screen = this.running() ? this.screen() : '';
      if (typeof text === 'string' ? screen.includes(text) : text.test(screen)) return screen;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${String(text)}; the screen was:\n${screen}`);
  }

  async waitForExit(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.running()) {
      if (Date.now() > deadline) throw new Error(`kb quiz did not exit; the screen was:\n${this.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  stop(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { env: { ...process.env, TMUX: '' } });
  }
}
