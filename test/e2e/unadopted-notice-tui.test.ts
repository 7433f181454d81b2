// Issue #13 (found as a new user): `kb review` in a folder of notes that has no kb.json reviews
// the bundled knowledge base. The hint kb prints on stderr is hidden by the review screen until
// it closes, so the screen itself says so on its status line, in one line at 80 columns.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UNADOPTED_NOTICE } from '../../src/cli/review.ts';
import { kbBin, tempDir } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

const PROMPT = /^bash-\S*[$#]/m;

describe('kb review in a folder of notes without kb.json', () => {
  it('says on the screen that it shows the bundled cards and how to adopt the folder', { timeout: TMUX_TEST_TIMEOUT_MS }, async () => {
    const root = join(tempDir(), 'my notes');
    mkdirSync(join(root, 'notes'), { recursive: true });
    writeFileSync(join(root, 'notes/a.md'), '# My own question?\n\nMy own answer.\n');
    tmux = new TmuxKb();
    tmux.startShell({ columns: 80, rows: 24 });
    await tmux.waitFor(PROMPT);
    tmux.type(`cd '${root}' && ${kbBin} review`);
    tmux.send('Enter');
    const screen = await tmux.waitFor(UNADOPTED_NOTICE);
    // On its own row, whole: nothing wrapped at 80 columns.
    expect(screen.split('\n').map((line) => line.trimEnd())).toContain(UNADOPTED_NOTICE);
    expect(screen).toContain('kb review  done 0');
    // The first action's own message takes the row.
    tmux.send('b');
    await tmux.waitFor((now) => !now.includes(UNADOPTED_NOTICE) && now.includes('kb review'));
    tmux.send('u');
    tmux.send('q');
    const after = await tmux.waitFor((now) => now.includes('Reviewed 0 cards') && PROMPT.test(now));
    expect(after).toContain('make this folder yours with: kb init .');
  });
});
