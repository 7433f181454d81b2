// `e` edits a card, then reloads it. An edit that breaks the file (the scan skips a file with
// an error, keeping its cards as they were) said "reloaded", and the card went on with its
// text from before the edit (found as a user: a kb-calc formula edited to an unknown name).
// A note opens at its question, not at its frontmatter's first line (found as a user too).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { openDatabase } from '../../src/store/db.ts';
import { ReviewRun } from '../../src/app/review/review-run.ts';
import { ReviewService } from '../../src/app/review/review-service.ts';
import { tempDir } from '../helpers/kb-cli.ts';
import { FakeLabs } from '../ui/fake-labs.ts';

describe('editing a card from kb review', () => {
  it('opens a note at its question, after the frontmatter', async () => {
    const root = tempDir('kb-edit-');
    mkdirSync(join(root, 'notes'), { recursive: true });
    writeFileSync(join(root, 'notes/a.md'), '---\nid: bbbbbbbbbbbb\ntags: [t]\n---\n\n# What is TTFT?\n\n## Answer\n\nTime to first token.\n');
    writeFileSync(join(root, 'notes/b.md'), '---\nid: cccccccccccc\n---\nNo heading: the file name is its question.\n');
    const db = openDatabase(join(root, 'kb.db'));
    const target = { root, db, writable: true, config: defaultConfig };
    await scanKnowledgeBase(target);
    const run = new ReviewRun(new ReviewService(target), root, {}, { rescan: async () => [], editor: 'vi', writable: true, startedAt: Date.now(), labs: new FakeLabs() });
    expect(run.editCommand('bbbbbbbbbbbb')).toEqual({ command: 'vi', args: ['+6', join(root, 'notes/a.md')] });
    expect(run.editCommand('cccccccccccc')).toEqual({ command: 'vi', args: ['+4', join(root, 'notes/b.md')] });
    db.close();
  });
});

/** A run over cards/deck.md holding `text`, scanned, whose reload scans again. */
async function deckRun(text: string, startedAt: number) {
  const root = tempDir('kb-reload-');
  mkdirSync(join(root, 'cards'), { recursive: true });
  const deck = join(root, 'cards/deck.md');
  writeFileSync(deck, text);
  const db = openDatabase(join(root, 'kb.db'));
  const target = { root, db, writable: true, config: defaultConfig };
  await scanKnowledgeBase(target);
  const rescan = async () => (await scanKnowledgeBase(target)).errors;
  const run = new ReviewRun(new ReviewService(target), root, {}, { rescan, editor: 'vi', writable: true, startedAt, labs: new FakeLabs() });
  return { deck, db, run };
}

describe('reloading a card after an edit', () => {
  it('says the edit was not taken, and why, when the file no longer scans', async () => {
    const { deck, db, run } = await deckRun('## One?\n<!-- kb:id=aaaaaaaaaaaa -->\n\nA.\n', Date.now());

    writeFileSync(deck, '## One?\n<!-- kb:id=aaaaaaaaaaaa -->\n\n<<<<<<< HEAD\nA.\n=======\nB.\n>>>>>>> other\n');
    expect((await run.reload('aaaaaaaaaaaa')).message).toMatch(/^not reloaded: cards\/deck\.md:4: .*conflict/);

    writeFileSync(deck, '## One?\n<!-- kb:id=aaaaaaaaaaaa -->\n\nB.\n');
    expect((await run.reload('aaaaaaaaaaaa')).message).toBe('reloaded');
    db.close();
  });

  it('skips a card the edit deleted from its file: it is not shown again, nor rated (found by a probe)', async () => {
    const now = Date.now();
    const { deck, db, run } = await deckRun('## One?\n<!-- kb:id=aaaaaaaaaaaa -->\n\nA.\n\n## Two?\n<!-- kb:id=bbbbbbbbbbbb -->\n\nB.\n', now);
    const first = run.next(now);
    expect(first.kind === 'card' && first.card.id).toBe('aaaaaaaaaaaa');
    expect(run.counts()).toMatchObject({ new: 2 });

    // e, and the card's section deleted in the editor.
    writeFileSync(deck, '## Two?\n<!-- kb:id=bbbbbbbbbbbb -->\n\nB.\n');
    expect((await run.reload('aaaaaaaaaaaa')).message).toBe('this card is no longer in the file (cards/deck.md): skipped');
    expect(run.counts()).toMatchObject({ new: 1 });
    const next = run.next(now + 1_000);
    expect(next.kind === 'card' && next.card.id).toBe('bbbbbbbbbbbb');
    run.rate('bbbbbbbbbbbb', 3, now + 2_000, 1_000);
    const after = run.next(now + 3_000);
    expect(after.kind === 'card' ? after.card.id : after.kind).not.toBe('aaaaaaaaaaaa');
    expect(db.prepare("SELECT count(*) AS n FROM review_log WHERE card_id = 'aaaaaaaaaaaa'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('says the file is gone when the edit deleted the whole note (it said the card was no longer in the file)', async () => {
    const { deck, db, run } = await deckRun('## One?\n<!-- kb:id=aaaaaaaaaaaa -->\n\nA.\n', Date.now());
    rmSync(deck);
    expect((await run.reload('aaaaaaaaaaaa')).message).toBe('the file is gone (cards/deck.md): skipped');
    db.close();
  });
});
