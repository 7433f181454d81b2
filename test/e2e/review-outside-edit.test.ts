// The real `kb review` in a terminal (tmux) while its notes are written and deleted from
// outside, as by another editor. Found as a user: a note whose answer was changed outside
// showed the old answer on Space, and a note deleted outside was shown and rated (the rating
// stored for a card no file holds); only a deletion made with e was skipped.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';
import { openDb } from './review-fixture.ts';

const note = (id: string, name: string) => `---\nid: ${id}\ntags: [t]\n---\n# Question ${name}?\n\n## Answer\n\nOld answer ${name}.\n`;

/** Three notes, a, b and c, scanned (their ids: aaaa…, bbbb…, cccc…). */
function threeNotes(): { root: string; path: (name: string) => string } {
  const root = writeKb(Object.fromEntries(['a', 'b', 'c'].map((name) => [`notes/${name}.md`, note(name.repeat(12), name)])));
  const scan = runKb(['--kb', root, 'scan']);
  if (scan.code !== 0) throw new Error(`kb scan failed: ${scan.stderr}`);
  return { root, path: (name) => join(root, `notes/${name}.md`) };
}

function ratingsOf(root: string, id: string): number {
  const db = openDb(root);
  try {
    return (db.prepare('SELECT count(*) AS n FROM review_log WHERE card_id = ?').get(id) as { n: number }).n;
  } finally {
    db.close();
  }
}

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

describe('kb review while another editor writes the notes', () => {
  it('shows the answer the file has now when it was changed outside after the card came up', async () => {
    const kb = threeNotes();
    tmux = new TmuxKb();
    tmux.start(kb.root, 'review');
    await tmux.waitFor('Question a?');
    writeFileSync(kb.path('a'), note('a'.repeat(12), 'a').replace('Old answer a.', 'New answer a, written in another editor.'));
    tmux.send('Space');
    const screen = await tmux.waitFor(/1 Again .*4 Easy/);
    expect(screen).toContain('New answer a, written in another editor.');
    expect(screen).not.toContain('Old answer a.');
    tmux.send('3');
    await tmux.waitFor('Question b?');
    tmux.send('q');
    await tmux.waitForExit();
    const text = readFileSync(kb.path('a'), 'utf8');
    expect(text).toContain('New answer a, written in another editor.');
    expect(text).toContain('review_count: 1');
  }, TMUX_TEST_TIMEOUT_MS);

  it('skips a note deleted outside when it comes up, naming its file, and never stores a rating for it', async () => {
    const kb = threeNotes();
    tmux = new TmuxKb();
    tmux.start(kb.root, 'review');
    await tmux.waitFor('Question a?');
    await tmux.revealAndRate('3');
    await tmux.waitFor('Question b?');
    // c is queued after b; deleted now, it is skipped when it comes up.
    rmSync(kb.path('c'));
    // b is deleted while its answer is on screen: the rating is not stored.
    tmux.send('Space');
    await tmux.waitFor(/1 Again .*4 Easy/);
    rmSync(kb.path('b'));
    tmux.send('3');
    // Both named in the status line (it wraps: read as one line).
    const flat = (screen: string) => screen.replaceAll('\n', ' ');
    const screen = flat(await tmux.waitFor((shown) => flat(shown).includes('skipped: notes/c.md was deleted outside kb')));
    expect(screen).toContain('skipped: notes/b.md was deleted outside kb');
    expect(screen).not.toMatch(/Question [bc]\?/);
    tmux.send('q');
    await tmux.waitForExit();
    expect(existsSync(kb.path('b'))).toBe(false);
    expect(ratingsOf(kb.root, 'b'.repeat(12))).toBe(0);
    expect(ratingsOf(kb.root, 'c'.repeat(12))).toBe(0);
    expect(ratingsOf(kb.root, 'a'.repeat(12))).toBe(1);
  }, TMUX_TEST_TIMEOUT_MS);
});
