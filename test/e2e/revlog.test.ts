// The FSRS tools' revlog CSV: kb export --revlog, then kb import --revlog into a fresh
// knowledge base with the same cards gives the same schedule; importing again adds nothing;
// rows that cannot be placed are refused with a count and a reason.
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { rate, schedule, sync, twoClones } from '../helpers/git-clones.ts';

/** A wide $COLUMNS: lines read whole (piped, kb fits them to 80 columns). */
const WIDE = { env: { COLUMNS: '400' } };
import { syntheticReviews } from '../helpers/synthetic-reviews.ts';

interface ListedCard {
  id: string;
  reps: number;
}

function reviewedCards(root: string): ListedCard[] {
  return (JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as ListedCard[]).filter((card) => card.reps > 0);
}

/** A deck of cards with a history: another device's log, with a forget in it. */
function reviewedKb(): { root: string; ids: string[] } {
  // The first card carries an id written by hand (as the bundled cards/your-machine.md does): it has no number form.
  const deck = Array.from({ length: 12 }, (_, index) => `## Question ${index}?\n${index === 0 ? '<!-- kb:id=my-own-id-0 -->\n' : ''}\nAnswer ${index}.\n`).join('\n');
  const root = writeKb({ 'kb.json': '{}\n', 'cards/deck.md': `---\ntags: [revlog]\n---\n${deck}` });
  expect(runKb(['--kb', root, 'scan']).code).toBe(0);
  const ids = (JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as ListedCard[]).map((card) => card.id);
  // Four reviews a card from 2020: the history ends in 2024, in the past (a review after now is refused).
  const reviews = syntheticReviews(ids.slice(0, 10), 4, Date.UTC(2020, 0, 5, 9));
  const lines = reviews.map((review, n) => ({ id: `d-${n}`, device: 'laptop', n, card: review.card, at: review.at, kind: 'rate', day: '2020-01-05', rating: review.rating, duration: 4000 + n }));
  const last = reviews.filter((review) => review.card === ids[0]).at(-1)!.at;
  lines.push({ id: 'd-forget', device: 'laptop', n: lines.length, card: ids[0], at: last + 1000, kind: 'forget', day: '2020-01-05' } as never);
  lines.push({ id: 'd-after', device: 'laptop', n: lines.length, card: ids[0], at: last + 86_400_000, kind: 'rate', day: '2020-01-06', rating: 3, duration: 0 });
  mkdirSync(join(root, 'reviews'));
  writeFileSync(join(root, 'reviews/laptop.jsonl'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return { root, ids };
}

describe('revlog CSV', () => {
  it('--revlog - is refused with the reason, nothing written: kb export writes two files, which stdout cannot hold (found as a power user: it wrote files named "-" and "-.ids.csv")', () => {
    const { root } = reviewedKb();
    const cwd = tempDir('kb-cwd-');
    const exported = runKb(['--kb', root, 'export', '--revlog', '-'], { cwd });
    expect(exported.code).toBe(1);
    expect(exported.stdout).toBe('');
    expect(exported.stderr).toMatch(/^kb: export: --revlog -: .*FILE\.csv/);
    expect(readdirSync(cwd)).toEqual([]);
    const imported = runKb(['--kb', root, 'import', '--revlog', '-'], { cwd, input: 'card_id,review_time,review_rating,review_state,review_duration\n' });
    expect(imported.code).toBe(1);
    expect(imported.stderr).toMatch(/^kb: import: --revlog -: .*FILE\.csv/);
  });

  it('export, then import into a fresh knowledge base: the same schedule; a second import adds nothing', () => {
    const { root } = reviewedKb();
    const out = join(tempDir('kb-revlog-'), 'history.csv');
    const exported = runKb(['--kb', root, 'export', '--revlog', out], WIDE);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe(`wrote 41 reviews of 10 cards to ${out}; card numbers to kb ids in ${out.replace(/\.csv$/, '.ids.csv')}\n`);
    const csv = readFileSync(out, 'utf8').trim().split('\n');
    expect(csv[0]).toBe('card_id,review_time,review_rating,review_state,review_duration');
    expect(csv[1]).toMatch(/^\d+,\d{13},[1-4],0,\d+$/);

    // The same cards (their ids are in the file), no database, no log.
    const fresh = tempDir('kb-fresh-');
    cpSync(join(root, 'cards'), join(fresh, 'cards'), { recursive: true });
    writeFileSync(join(fresh, 'kb.json'), '{}\n');
    // No --map: the mapping kb export wrote beside the file is read (found as a user: without
    // it the rows of a hand-written id were refused).
    const imported = runKb(['--kb', fresh, 'import', '--revlog', out], WIDE);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toBe(`imported 41 of 41 rows; 0 already in the log\ninferred 1 reset (forget): a row from state 0 after earlier reviews of its card\ncard ids read through ${out.replace(/\.csv$/, '.ids.csv')} (kb export's mapping beside it)\n`);
    expect(reviewedCards(fresh)).toEqual(reviewedCards(root));

    const again = runKb(['--kb', fresh, 'import', '--revlog', out, '--map', out.replace(/\.csv$/, '.ids.csv')]);
    expect(again.stdout).toBe('imported 0 of 41 rows; 41 already in the log\n');
    // Rows add up (found as a user: "imported 0 events from 5 rows; 6 already in the log", a reset counted as a row).
    const json = JSON.parse(runKb(['--kb', fresh, 'import', '--revlog', out, '--json']).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ rows: 41, added: 0, duplicates: 41, resets: 0, refused: [] });
    // Into the knowledge base it came from: every rating is already there under its own id.
    expect(runKb(['--kb', root, 'import', '--revlog', out, '--map', out.replace(/\.csv$/, '.ids.csv')]).stdout).toBe('imported 0 of 41 rows; 41 already in the log\n');
    expect(reviewedCards(fresh)).toEqual(reviewedCards(root));
  });

  it('a forget is never imported twice: the same file again, a file in whole seconds into the knowledge base it came from, or after the same history in milliseconds (found as a user: a second forget event)', () => {
    const root = writeKb({ 'kb.json': '{}\n', 'notes/a.md': '---\nid: aaaaaaaaaaaa\n---\n# What is TTFT?\n\n## Answer\n\nTime to first token.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    // Good, Good a day later, a kb forget, then Again: the forget 200 ms into the second of the
    // Again after it (a file in seconds says that review came at the start of its second).
    const start = Date.UTC(2024, 2, 4, 9, 0, 0) + 123;
    const again = start + 2 * 86_400_000 + 877 + 500;
    const lines = [
      { id: 'd-1', device: 'laptop', n: 0, card: 'aaaaaaaaaaaa', at: start, kind: 'rate', day: '2024-03-04', rating: 3, duration: 1000 },
      { id: 'd-2', device: 'laptop', n: 1, card: 'aaaaaaaaaaaa', at: start + 86_400_000, kind: 'rate', day: '2024-03-05', rating: 3, duration: 1000 },
      { id: 'd-forget', device: 'laptop', n: 2, card: 'aaaaaaaaaaaa', at: again - 300, kind: 'forget', day: '2024-03-06' },
      { id: 'd-3', device: 'laptop', n: 3, card: 'aaaaaaaaaaaa', at: again, kind: 'rate', day: '2024-03-06', rating: 1, duration: 1000 },
    ];
    mkdirSync(join(root, 'reviews'));
    writeFileSync(join(root, 'reviews/laptop.jsonl'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const dir = tempDir('kb-revlog-');
    const ms = join(dir, 'ms.csv');
    expect(runKb(['--kb', root, 'export', '--revlog', ms]).code).toBe(0);
    const seconds = join(dir, 'seconds.csv');
    writeFileSync(seconds, readFileSync(ms, 'utf8').replace(/^(\d+),(\d{10})\d{3},/gm, '$1,$2000,'));
    writeFileSync(join(dir, 'seconds.ids.csv'), readFileSync(join(dir, 'ms.ids.csv')));
    const forgets = (kb: string) => readdirSync(join(kb, 'reviews')).flatMap((file) => readFileSync(join(kb, 'reviews', file), 'utf8').split('\n')).filter((line) => line.includes('"kind":"forget"')).length;
    const cards = (kb: string) => (JSON.parse(runKb(['--kb', kb, 'cards', '--json']).stdout) as Array<Record<string, unknown>>).map(({ id, reps, lapses, state, due }) => ({ id, reps, lapses, state, due }));

    // Into the knowledge base it came from: the forget is there already, under its own id.
    for (const file of [ms, seconds]) expect(runKb(['--kb', root, 'import', '--revlog', file]).stdout).toMatch(/^imported 0 of 3 rows; 3 already in the log$/m);
    expect(forgets(root)).toBe(1);

    // Into a fresh copy of the notes: once, then again, then the same history in seconds.
    const fresh = tempDir('kb-fresh-');
    cpSync(join(root, 'notes'), join(fresh, 'notes'), { recursive: true });
    writeFileSync(join(fresh, 'kb.json'), '{}\n');
    expect(runKb(['--kb', fresh, 'import', '--revlog', ms]).stdout).toMatch(/^imported 3 of 3 rows; 0 already in the log\ninferred 1 reset \(forget\): a row from state 0 after earlier reviews of its card$/m);
    expect(runKb(['--kb', fresh, 'import', '--revlog', ms]).stdout).toMatch(/^imported 0 of 3 rows; 3 already in the log$/m);
    expect(runKb(['--kb', fresh, 'import', '--revlog', seconds]).stdout).toMatch(/^imported 0 of 3 rows; 3 already in the log$/m);
    expect(forgets(fresh)).toBe(1);
    expect(cards(fresh)).toEqual(cards(root));
  });

  it("into a copy of the notes, whose frontmatter already counts the reviews: the same schedule, not twice the reps", () => {
    const root = writeKb({ 'kb.json': '{}\n', 'notes/a.md': '---\nid: aaaaaaaaaaaa\n---\n# What is TTFT?\n\n## Answer\n\nTime to first token.\n', 'notes/b.md': '---\nid: bbbbbbbbbbbb\n---\n# What is TPOT?\n\n## Answer\n\nTime per output token.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    for (const [id, rating] of [['aaaaaaaaaaaa', 'good'], ['aaaaaaaaaaaa', 'good'], ['bbbbbbbbbbbb', 'easy'], ['aaaaaaaaaaaa', 'again']]) expect(runKb(['--kb', root, 'rate', id, rating]).code).toBe(0);
    expect(readFileSync(join(root, 'notes/a.md'), 'utf8')).toMatch(/review_count: 3/);
    const out = join(tempDir('kb-revlog-'), 'history.csv');
    expect(runKb(['--kb', root, 'export', '--revlog', out]).code).toBe(0);
    const fresh = tempDir('kb-fresh-');
    cpSync(join(root, 'notes'), join(fresh, 'notes'), { recursive: true });
    writeFileSync(join(fresh, 'kb.json'), '{}\n');
    expect(runKb(['--kb', fresh, 'import', '--revlog', out]).code).toBe(0);
    const cards = (kb: string) => (JSON.parse(runKb(['--kb', kb, 'cards', '--json']).stdout) as Array<Record<string, unknown>>).map(({ id, reps, lapses, state, due }) => ({ id, reps, lapses, state, due }));
    expect(cards(fresh)).toEqual(cards(root));
    expect(cards(fresh).find((card) => card.id === 'aaaaaaaaaaaa')).toMatchObject({ reps: 3 });
  });

  it('kb undo leaves an imported review alone and says so, rather than that no rating stands (found following the README)', () => {
    const root = writeKb({ 'kb.json': '{}\n', 'notes/itl.md': '# What is ITL?\n\n## Answer\n\nThe gap between two tokens.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const [card] = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as ListedCard[];
    const csv = join(tempDir('kb-revlog-'), 'one.csv');
    writeFileSync(csv, `card_id,review_time,review_rating,review_state,review_duration\n${card.id},${Date.UTC(2024, 0, 5, 9)},3,0,4000\n`);
    expect(runKb(['--kb', root, 'import', '--revlog', csv]).code).toBe(0);
    const undo = runKb(['--kb', root, 'undo']);
    expect(undo.code).toBe(0);
    expect(undo.stdout).toBe("Nothing to undo on this device (another device's and imported history stay).\n");
    expect(reviewedCards(root).map((listed) => listed.reps)).toEqual([1]);
    expect(runKb(['undo', '--help']).stdout.replace(/\s+/g, ' ')).toContain('history brought in with kb import --revlog stay');
  });

  it('two identical rows in one whole second are two reviews, and the file again adds nothing (found as a user: one was kept)', () => {
    const root = writeKb({ 'kb.json': '{}\n', 'notes/itl.md': '# What is ITL?\n\n## Answer\n\nThe gap between two tokens.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const [card] = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as ListedCard[];
    // A tool that keeps whole seconds: two Goods given within one second (a second row of
    // another time between them, in file order, changes nothing).
    const second = Date.UTC(2024, 0, 5, 9, 0, 7);
    const csv = join(tempDir('kb-revlog-'), 'seconds.csv');
    writeFileSync(csv, `card_id,review_time,review_rating,review_state,review_duration\n${card.id},${second},3,0,4000\n${card.id},${second + 86_400_000},3,2,4000\n${card.id},${second},3,1,3000\n`);
    expect(runKb(['--kb', root, 'import', '--revlog', csv]).stdout).toBe('imported 3 of 3 rows; 0 already in the log\n');
    expect(reviewedCards(root).map((listed) => listed.reps)).toEqual([3]);
    expect(runKb(['--kb', root, 'import', '--revlog', csv]).stdout).toBe('imported 0 of 3 rows; 3 already in the log\n');
    // kb's own export of them (ms, here whole seconds) into the same knowledge base: nothing either.
    const out = join(tempDir('kb-revlog-'), 'out.csv');
    expect(runKb(['--kb', root, 'export', '--revlog', out]).code).toBe(0);
    expect(readFileSync(out, 'utf8').split('\n').filter((line) => line.includes(`,${second},3,`))).toHaveLength(2);
    expect(runKb(['--kb', root, 'import', '--revlog', out]).stdout).toMatch(/^imported 0 of 3 rows; 3 already in the log$/m);
    expect(reviewedCards(root).map((listed) => listed.reps)).toEqual([3]);
    expect(runKb(['--kb', root, 'doctor']).stdout).toContain('0 errors, 0 warnings');
  });

  it('export replaces only an earlier export: a note (a slip of the path) or a FILE.ids.csv of the user\'s own is refused, unchanged (found as a user: overwritten)', () => {
    const { root } = reviewedKb();
    const deck = readFileSync(join(root, 'cards/deck.md'), 'utf8');
    const onNote = runKb(['--kb', root, 'export', '--revlog', join(root, 'cards/deck.md')], WIDE);
    expect(onNote.code).toBe(1);
    expect(onNote.stderr).toBe(`kb: ${join(root, 'cards/deck.md')} exists and is not a file kb export wrote (its first line is not card_id,review_time,review_rating,review_state,review_duration); nothing was written: name a new file, or move that one away first\n`);
    expect(readFileSync(join(root, 'cards/deck.md'), 'utf8')).toBe(deck);
    expect(existsSync(join(root, 'cards/deck.md.ids.csv'))).toBe(false);

    // The mapping's name beside a new CSV is taken by a file of the user's: neither is written.
    const dir = tempDir('kb-revlog-');
    writeFileSync(join(dir, 'history.ids.csv'), 'my own notes\n');
    const onMap = runKb(['--kb', root, 'export', '--revlog', join(dir, 'history.csv')], WIDE);
    expect(onMap.code).toBe(1);
    expect(onMap.stderr).toContain(`${join(dir, 'history.ids.csv')} exists and is not a file kb export wrote`);
    expect(readFileSync(join(dir, 'history.ids.csv'), 'utf8')).toBe('my own notes\n');
    expect(existsSync(join(dir, 'history.csv'))).toBe(false);

    // An earlier export (and an empty file) is replaced, as before.
    const out = join(dir, 'again.csv');
    writeFileSync(out, '');
    expect(runKb(['--kb', root, 'export', '--revlog', out], WIDE).code).toBe(0);
    const first = readFileSync(out, 'utf8');
    const second = runKb(['--kb', root, 'export', '--revlog', out], WIDE);
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(first);
  });

  it('refuses rows it cannot place, counted by reason, and imports the rest', () => {
    const { root, ids } = reviewedKb();
    const out = join(tempDir('kb-revlog-'), 'history.csv');
    runKb(['--kb', root, 'export', '--revlog', out]);
    appendFileSync(out, `1152921504606846977,1767600000000,3,2,0\n17,1767600000000,3,2,0\n12345,1767600000000,0,2,0\nabc,1,3,2,0\n17,${Date.now() + 10 * 86_400_000},3,2,0\n`);
    // Without the mapping file (from elsewhere, say): the hand-written id's rows cannot be placed.
    rmSync(out.replace(/\.csv$/, '.ids.csv'));
    const fresh = tempDir('kb-fresh-');
    cpSync(join(root, 'cards'), join(fresh, 'cards'), { recursive: true });
    const run = runKb(['--kb', fresh, 'import', '--revlog', out], WIDE);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      'imported 36 of 46 rows; 0 already in the log',
      'refused 1 row: review_rating 0 is not 1-4 (line 45)',
      // Text that is no kb id (abc) is looked up as an id as it is: it names no card here.
      'refused 2 rows: no card with that id in this knowledge base (run kb scan?) (line 44, 46)',
      // Rows are placed in time order, but their lines are listed in file order.
      'refused 6 rows: card_id is not a kb card id (give the mapping file with --map) (line 2, 12, 15, 17, 19, ...)',
      // A review dated after now cannot have happened.
      'refused 1 row: review_time is in the future (line 47)',
      '',
    ]);
    expect(ids.length).toBe(12);
    const notCsv = join(tempDir('kb-revlog-'), 'bad.csv');
    writeFileSync(notCsv, 'when,what\n1,2\n');
    expect(runKb(['--kb', fresh, 'import', '--revlog', notCsv])).toMatchObject({ code: 1, stderr: `kb: ${notCsv}: no card_id column in the header (card_id,review_time,review_rating,review_state,review_duration)\n` });
    rmSync(notCsv);
    expect(runKb(['--kb', fresh, 'import', '--revlog', notCsv])).toMatchObject({ code: 1, stderr: `kb: ${notCsv}: no such file or folder (ENOENT on open)\n` });
    expect(runKb(['--kb', fresh, 'import', '--revlog', out, '--map', `${notCsv}.ids`])).toMatchObject({ code: 1, stderr: `kb: ${notCsv}.ids: no such file or folder (ENOENT on open)\n` });
    expect(runKb(['--kb', fresh, 'export'])).toMatchObject({ code: 1, stderr: 'kb: export: say what to export: --revlog FILE.csv\n' });
    // A folder named for either file is said with its path (found as a user: `kb import --revlog
    // /tmp` said "a folder stands where a file is expected; move it away", naming nothing).
    const folder = tempDir('kb-revlog-dir-');
    expect(runKb(['--kb', fresh, 'import', '--revlog', folder])).toMatchObject({ code: 1, stderr: `kb: ${folder}: a folder, not a revlog CSV; name the CSV file itself\n` });
    expect(runKb(['--kb', fresh, 'import', '--revlog', out, '--map', folder])).toMatchObject({ code: 1, stderr: `kb: ${folder}: a folder, not a card_id,kb_id mapping CSV; name the CSV file itself\n` });
  });

  it('a card_id naming a card of this knowledge base is imported whatever its shape (found by a probe: the bundled cmkzgimfo90n was refused as "neither a whole number nor a kb id")', () => {
    // Ids as the bundled cards/your-machine.md has them (a digit, a 0, 1, 8 or 9: not of the form
    // kb makes), one written by hand in a note, and one that is a whole number.
    const root = writeKb({
      'kb.json': '{}\n',
      'cards/deck.md': '## First?\n<!-- kb:id=cmkzgimfo90n -->\n\nOne.\n\n## Second?\n<!-- kb:id=264z0933m181 -->\n\nTwo.\n',
      'notes/own.md': '---\nid: my-note\n---\n# Third?\n\n## Answer\n\nThree.\n',
      'notes/numbered.md': '---\nid: "4242"\n---\n# Fourth?\n\n## Answer\n\nFour.\n',
    });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const csv = join(tempDir('kb-revlog-'), 'anki.csv');
    const at = Date.UTC(2025, 5, 2, 17, 30);
    writeFileSync(csv, `card_id,review_time,review_rating,review_state,review_duration\ncmkzgimfo90n,${at},3,0,5000\n264z0933m181,${at},3,0,5000\nmy-note,${at},4,0,5000\n4242,${at},3,0,5000\nno-such-card,${at},3,0,5000\n`);
    const run = runKb(['--kb', root, 'import', '--revlog', csv], WIDE);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')).toEqual(['imported 4 of 5 rows; 0 already in the log', 'refused 1 row: no card with that id in this knowledge base (run kb scan?) (line 6)', '']);
    expect(reviewedCards(root).map((card) => card.id).sort()).toEqual(['264z0933m181', '4242', 'cmkzgimfo90n', 'my-note']);
  });

  it('kb undo after an import takes back the latest rating made here, and its note says so (found as a user: refused, "changed after its last rating")', () => {
    const root = writeKb({ 'kb.json': '{}\n', 'notes/itl.md': '# What is ITL?\n\n## Answer\n\nThe gap between two tokens.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const [card] = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as ListedCard[];
    expect(runKb(['--kb', root, 'rate', card.id, 'good']).code).toBe(0);
    // An older review of the card, imported after the rating: it replays before it.
    const csv = join(tempDir(), 'old.csv');
    writeFileSync(csv, `card_id,review_time,review_rating,review_state,review_duration\n${card.id},${Date.now() - 3_600_000},3,0,1000\n`);
    expect(runKb(['--kb', root, 'import', '--revlog', csv]).code).toBe(0);
    const undo = runKb(['--kb', root, 'undo']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(/^undid Good on /);
    expect(reviewedCards(root).map((listed) => listed.reps)).toEqual([1]);
    expect(readFileSync(join(root, 'notes/itl.md'), 'utf8')).toContain('review_count: 1');
    expect(runKb(['--kb', root, 'doctor']).stdout).toContain('0 errors, 0 warnings');
  });

  // Found by a new-user probe: the import gave the reviews new ids, so the union of the two
  // clones' logs by id held each twice (reps 2 for one answer) and kb doctor found a lost change.
  for (const seconds of [false, true]) {
    it(`another clone's export imported before the two sync: each review counts once on both clones after the merge (times in ${seconds ? 'seconds' : 'ms'})`, () => {
      const { a, b, ids } = twoClones();
      const [one, two] = ids;
      rate(a, one, 'good');
      rate(a, two, 'again');
      rate(a, two, 'good');
      expect(sync(a).code).toBe(0);
      const out = join(tempDir('kb-revlog-'), 'a.csv');
      expect(runKb(['--kb', a, 'export', '--revlog', out]).code).toBe(0);
      // A CSV from a tool that keeps whole seconds: the same reviews.
      if (seconds) writeFileSync(out, readFileSync(out, 'utf8').replace(/^(\d+),(\d{10})\d{3},/gm, '$1,$2000,'));
      const imported = runKb(['--kb', b, 'import', '--revlog', out]);
      expect(imported.stdout).toMatch(/^imported 3 of 3 rows; 0 already in the log$/m);
      for (const root of [b, a, b]) {
        const synced = sync(root);
        expect(synced.code, synced.stderr).toBe(0);
      }
      const cards = (root: string) => JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as Array<{ id: string; reps: number }>;
      expect(cards(a)).toEqual(cards(b));
      expect(schedule(a)).toEqual(schedule(b));
      expect(cards(a).find((card) => card.id === one)?.reps).toBe(1);
      expect(cards(a).find((card) => card.id === two)?.reps).toBe(2);
      for (const root of [a, b]) {
        const doctor = runKb(['--kb', root, 'doctor']);
        expect(doctor.stdout).toMatch(/^0 errors, 0 warnings$/m);
        expect(doctor.code).toBe(0);
        expect(readFileSync(join(root, 'notes/one.md'), 'utf8')).toMatch(/review_count: 1\n/);
      }
      // Importing it again on either clone adds nothing.
      for (const root of [a, b]) expect(runKb(['--kb', root, 'import', '--revlog', out]).stdout).toMatch(/^imported 0 of 3 rows; 3 already in the log$/m);
    });
  }
});
