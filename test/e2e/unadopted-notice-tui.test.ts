// Issue #13 (found as a new user): `kb review` (and `kb quiz`) in a folder of notes that has no kb.json reviews
// the bundled knowledge base. The hint kb prints on stderr is hidden by the review screen until
// it closes, so the screen itself says so on its status line, in one line at 80 columns.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UNADOPTED_NOTICE } from '../../src/cli/context.ts';
import { kbBin, tempDir } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

const PROMPT = /^bash-\S*[$#]/m;

/** A folder with a note of its own and no kb.json, and a shell at 80x24 in it running `kb <command>`. */
async function kbInFolderOfNotes(command: string): Promise<TmuxKb> {
  const root = join(tempDir(), 'my notes');
  mkdirSync(join(root, 'notes'), { recursive: true });
  writeFileSync(join(root, 'notes/a.md'), '# My own question?\n\nMy own answer.\n');
  const terminal = new TmuxKb();
  terminal.startShell({ columns: 80, rows: 24 });
  await terminal.waitFor(PROMPT);
  terminal.type(`cd '${root}' && ${kbBin} ${command}`);
  terminal.send('Enter');
  return terminal;
}

/** The notice on a row of its own, whole: nothing wrapped at 80 columns. */
function noticeRow(screen: string): void {
  expect(screen.split('\n').map((line) => line.trimEnd())).toContain(UNADOPTED_NOTICE);
}

describe('kb review and kb quiz in a folder of notes without kb.json', () => {
  it('kb review says on the screen that it shows the bundled cards and how to adopt the folder', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    tmux = await kbInFolderOfNotes('review');
    const screen = await tmux.waitFor(UNADOPTED_NOTICE);
    noticeRow(screen);
    expect(screen).toContain('kb review  done 0');
    // The first action's own message takes the row.
    tmux.send('b');
    await tmux.waitFor((now) => !now.includes(UNADOPTED_NOTICE) && now.includes('kb review'));
    tmux.send('u');
    tmux.send('q');
    const after = await tmux.waitFor((now) => now.includes('No cards reviewed') && PROMPT.test(now));
    expect(after).toContain('make this folder yours with: kb init .');
  });

  it('kb quiz says it too', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    tmux = await kbInFolderOfNotes('quiz');
    noticeRow(await tmux.waitFor(UNADOPTED_NOTICE));
    tmux.send('C-c');
    await tmux.waitFor((now) => PROMPT.test(now) && now.includes('make this folder yours with: kb init .'));
  });
});
