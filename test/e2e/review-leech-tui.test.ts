// Issue #13 item 4 in a real terminal: the rating that makes a card a leech says so on the
// review screen, once; with leechAction suspend the card does not come back.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

describe('a leech in kb review', () => {
  it('Again on a card at leechThreshold lapses shows the leech line once, and a suspended leech leaves the queue', async () => {
    const root = writeKb({
      'cards/deck.md': '## Question Alpha?\n\nAnswer Alpha.\n\n## Question Bravo?\n\nAnswer Bravo.\n',
      'kb.json': JSON.stringify({ leechThreshold: 1, leechAction: 'suspend' }),
    });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const [alpha] = JSON.parse(runKb(['--kb', root, 'cards', 'alpha', '--json']).stdout) as Array<{ id: string }>;
    expect(runKb(['--kb', root, 'rate', alpha.id, 'easy']).code).toBe(0);
    // Due again now, in the row and in its log alike.
    const due = Date.now() - 60_000;
    const db = new Database(join(root, '.kb/kb.db'));
    db.prepare('UPDATE fsrs SET due = ? WHERE card_id = ?').run(due, alpha.id);
    db.prepare(`UPDATE review_log SET state_after = json_set(state_after, '$.due', ?) WHERE card_id = ?`).run(due, alpha.id);
    db.close();

    tmux = new TmuxKb();
    tmux.start(root, 'review');
    await tmux.waitFor('Question Alpha?');
    tmux.send('Space');
    await tmux.waitFor('1 Again');
    tmux.send('1');
    let screen = await tmux.waitFor('Question Bravo?');
    expect(screen).toContain('leech: 1 lapse; suspended');
    expect(screen).toMatch(/new 1\s+learning 0\s+review 0/);
    tmux.send('Space');
    await tmux.waitFor('3 Good');
    tmux.send('4');
    screen = await tmux.waitFor((shown) => !shown.includes('Question Bravo?'));
    expect(screen).not.toContain('leech:');
    expect(screen).not.toContain('Question Alpha?');
    tmux.send('q');
    await tmux.waitForExit();
  }, TMUX_TEST_TIMEOUT_MS);
});
