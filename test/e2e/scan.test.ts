import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { cardsFile, fingerprint, note, openDb, parseJson, withoutIds } from './scan-fixtures.ts';

const scan = (root: string, ...args: string[]) => runKb(['--kb', root, 'scan', '--json', ...args]);

describe('kb scan', () => {
  it('adds notes and cards, writes only their ids, and a second scan changes nothing', () => {
    const root = writeKb({
      'notes/metrics/ttft.md': note('什么是 TTFT？'),
      'notes/metrics/tpot.md': note('什么是 TPOT？', { id: 'tpotnote0001' }),
      'cards/metrics.md': cardsFile,
      'lab/ttft-breakdown.md': '---\nmodel: tiny\n---\n# Lab\n',
    });
    const before = fingerprint(root);
    const first = scan(root);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const report = parseJson(first.stdout);
    expect(report.cards).toMatchObject({ added: 4, changed: 0, removed: 0, total: 4 });
    expect(report.idsWritten.map((entry: { file: string }) => entry.file).sort()).toEqual(['cards/metrics.md', 'notes/metrics/ttft.md']);

    // Nothing but the inserted ids changed, byte for byte.
    const after = fingerprint(root);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [path, file] of before) {
      expect(withoutIds(after.get(path)!.text), path).toBe(file.text);
    }
    expect(after.get('notes/metrics/tpot.md')!.sha).toBe(before.get('notes/metrics/tpot.md')!.sha);

    const db = openDb(root);
    const dataVersion = db.pragma('data_version', { simple: true });
    const second = scan(root);
    expect(second.code).toBe(0);
    expect(parseJson(second.stdout).cards).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 4 });
    expect(db.pragma('data_version', { simple: true })).toBe(dataVersion);
    const again = fingerprint(root);
    for (const [path, file] of after) expect(again.get(path)).toEqual(file);

    const rows = db.prepare('SELECT c.kind, c.deck, c.front, f.state FROM cards c JOIN fsrs f ON f.card_id = c.id ORDER BY c.path, c.line').all();
    expect(rows).toEqual([
      { kind: 'card', deck: 'metrics', front: 'What does TTFT measure?', state: 0 },
      { kind: 'card', deck: 'metrics', front: 'What does TPOT measure?', state: 0 },
      { kind: 'note', deck: 'metrics', front: '什么是 TPOT？', state: 0 },
      { kind: 'note', deck: 'metrics', front: '什么是 TTFT？', state: 0 },
    ]);
    db.close();
  });

  it('sees an edit, keeps the schedule across a move, and keeps a deleted card as an orphan', () => {
    const root = writeKb({ 'notes/a.md': note('A', { id: 'aaaaaaaaaaaa' }), 'notes/b.md': note('B', { id: 'bbbbbbbbbbbb' }) });
    expect(scan(root).code).toBe(0);

    writeFileSync(join(root, 'notes/a.md'), note('A', { id: 'aaaaaaaaaaaa', body: 'a better answer' }));
    renameSync(join(root, 'notes/b.md'), join(root, 'notes/b-renamed.md'));
    const report = parseJson(scan(root).stdout);
    expect(report.cards).toMatchObject({ added: 0, changed: 1, moved: 1, removed: 0, total: 2 });

    rmSync(join(root, 'notes/a.md'));
    const removed = parseJson(scan(root).stdout);
    expect(removed.cards).toMatchObject({ removed: 1, total: 1, orphans: 1 });
    const db = openDb(root);
    expect(db.prepare("SELECT orphan, path FROM cards WHERE id = 'aaaaaaaaaaaa'").get()).toEqual({ orphan: 1, path: 'notes/a.md' });
    expect(db.prepare("SELECT count(*) FROM fsrs WHERE card_id = 'aaaaaaaaaaaa'").pluck().get()).toBe(1);
    db.close();

    writeFileSync(join(root, 'notes/again.md'), note('A', { id: 'aaaaaaaaaaaa' }));
    expect(parseJson(scan(root).stdout).cards).toMatchObject({ restored: 1, total: 2, orphans: 0 });
  });

  it('counts notes moved to another folder as moved, their deck changed with it, not as changed', () => {
    const root = writeKb({
      'notes/metrics/a.md': note('A', { id: 'aaaaaaaaaaaa' }),
      'notes/metrics/b.md': note('B', { id: 'bbbbbbbbbbbb' }),
      'notes/metrics/c.md': note('C', { id: 'cccccccccccc' }),
    });
    expect(scan(root).code).toBe(0);

    mkdirSync(join(root, 'notes/decoding'));
    renameSync(join(root, 'notes/metrics/a.md'), join(root, 'notes/decoding/a.md'));
    renameSync(join(root, 'notes/metrics/b.md'), join(root, 'notes/decoding/b.md'));
    const text = runKb(['--kb', root, 'scan']);
    expect(text.code).toBe(0);
    expect(text.stdout.replace(/\s+/g, ' ')).toContain('cards: 0 added, 0 changed, 2 moved (deck changed), 0 restored');

    renameSync(join(root, 'notes/decoding/a.md'), join(root, 'notes/decoding/a2.md'));
    renameSync(join(root, 'notes/metrics/c.md'), join(root, 'notes/decoding/c.md'));
    const report = parseJson(scan(root).stdout);
    expect(report.cards).toMatchObject({ added: 0, changed: 0, moved: 2, movedToAnotherDeck: 1, removed: 0, total: 3 });

    // Moved and edited: its contents changed, so it is counted as changed.
    rmSync(join(root, 'notes/decoding/c.md'));
    writeFileSync(join(root, 'notes/metrics/c.md'), note('C', { id: 'cccccccccccc', body: 'a better answer' }));
    expect(parseJson(scan(root).stdout).cards).toMatchObject({ changed: 1, moved: 0, movedToAnotherDeck: 0 });
    const db = openDb(root);
    expect(db.prepare('SELECT id, deck, path FROM cards ORDER BY id').all()).toEqual([
      { id: 'aaaaaaaaaaaa', deck: 'decoding', path: 'notes/decoding/a2.md' },
      { id: 'bbbbbbbbbbbb', deck: 'decoding', path: 'notes/decoding/b.md' },
      { id: 'cccccccccccc', deck: 'metrics', path: 'notes/metrics/c.md' },
    ]);
    db.close();
  });

  it('reports malformed YAML with file and line, scans the other notes, exits 1 with a summary', () => {
    const root = writeKb({
      'notes/good-1.md': note('Good one'),
      'notes/bad.md': '---\ntitle: [unclosed\ndifficulty: easy\n---\n# Bad\n',
      'notes/good-2.md': note('Good two'),
    });
    const before = readFileSync(join(root, 'notes/bad.md'), 'utf8');
    const result = runKb(['--kb', root, 'scan']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: notes\/bad\.md:\d+: /m);
    expect(result.stdout).toMatch(/2 added/);
    expect(result.stdout).toMatch(/1 error/);
    expect(readFileSync(join(root, 'notes/bad.md'), 'utf8')).toBe(before);
    // The error is reported again until the file is fixed.
    expect(runKb(['--kb', root, 'scan']).stderr).toMatch(/notes\/bad\.md/);
  });

  it('does not hang on a symbolic link loop', () => {
    const root = writeKb({ 'notes/topic/a.md': note('A') });
    symlinkSync('..', join(root, 'notes/topic/loop'));
    const result = scan(root);
    expect(result.code).toBe(0);
    expect(parseJson(result.stdout).cards.total).toBe(1);
  });

  it('refuses both copies of a duplicated id, naming both places', () => {
    const root = writeKb({ 'notes/a.md': note('A', { id: 'dupdupdupdup' }) });
    expect(scan(root).code).toBe(0);
    writeFileSync(join(root, 'notes/copy.md'), note('Copy', { id: 'dupdupdupdup' }));
    const result = runKb(['--kb', root, 'scan']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('notes/copy.md');
    expect(result.stderr).toContain('notes/a.md');
    // What to do about it (found as a user: Obsidian's "Make a copy" blocked both notes, unexplained).
    expect(result.stderr).toContain('if this file is a copy, delete its id: line and kb scan gives it a new one');
    writeFileSync(join(root, 'notes/copy.md'), note('Copy'));
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const db = openDb(root);
    expect(db.prepare("SELECT path, front FROM cards WHERE id = 'dupdupdupdup'").get()).toEqual({ path: 'notes/a.md', front: 'A' });
    db.close();
  });

  it('names every copy of an id, the file it did not read again too, when two copies are added at once (found by hand: b.md and c.md named each other, never a.md)', () => {
    const root = writeKb({ 'notes/a.md': note('A', { id: 'dupdupdupdup' }) });
    expect(scan(root).code).toBe(0);
    writeFileSync(join(root, 'notes/b.md'), note('B', { id: 'dupdupdupdup' }));
    writeFileSync(join(root, 'notes/c.md'), note('C', { id: 'dupdupdupdup' }));
    const result = scan(root);
    expect(result.code).toBe(1);
    const errors = parseJson(result.stdout).errors as { file: string; message: string }[];
    const said = (file: string) => errors.find((error) => error.file === file)!.message;
    expect(said('notes/b.md')).toMatch(/also at notes\/c\.md:\d+, notes\/a\.md:\d+; none of the 3 cards was updated/);
    expect(said('notes/c.md')).toMatch(/also at notes\/b\.md:\d+, notes\/a\.md:\d+; none of the 3 cards was updated/);
    // The database keeps what it had: a.md's card.
    const db = openDb(root);
    expect(db.prepare("SELECT path, front FROM cards WHERE id = 'dupdupdupdup'").get()).toEqual({ path: 'notes/a.md', front: 'A' });
    db.close();
    // kb doctor, which reads every file, names the three as well.
    const doctor = runKb(['--kb', root, 'doctor']);
    expect(doctor.stdout).toMatch(/error: duplicate card id dupdupdupdup: notes\/a\.md:\d+, notes\/b\.md:\d+, notes\/c\.md:\d+/);
  });

  it('says a duplicated id at the line that holds it (the kb:id comment, the id: key), not the heading or line 1, with the card\'s question (found by hand)', () => {
    const comment = '<!-- kb:id=dupcarddup001 -->';
    const root = writeKb({
      'cards/m.md': `## What is TTFT?\n${comment}\n\nTime to first token.\n\n## What is TPOT?\n${comment}\n\nTime per output token.\n`,
      'cards/n.md': `---\ntags: [x]\n---\n## 什么是 goodput？\n<!-- kb:id=dupcarddup002 -->\n\nGood.\n`,
      'cards/o.md': `## What is goodput?\n<!-- kb:id=dupcarddup002 -->\n\nGood.\n`,
      'notes/a.md': note('A', { id: 'dupnotedup01' }),
      'notes/copy.md': note('Copy', { id: 'dupnotedup01' }),
    });
    const result = scan(root);
    expect(result.code).toBe(1);
    const errors = parseJson(result.stdout).errors as { file: string; line: number; message: string }[];
    const idLine = note('A', { id: 'dupnotedup01' }).split('\n').indexOf('id: dupnotedup01') + 1;
    expect(errors.map((error) => `${error.file}:${error.line}`).sort()).toEqual(['cards/m.md:7', 'cards/n.md:5', 'cards/o.md:2', `notes/a.md:${idLine}`, `notes/copy.md:${idLine}`]);
    const said = (file: string) => errors.find((error) => error.file === file)!.message;
    expect(said('cards/m.md')).toContain('on lines 2 and 7 ("## What is TTFT?" and "## What is TPOT?")');
    expect(said('cards/n.md')).toContain('duplicate card id dupcarddup002 ("## 什么是 goodput？"): also at cards/o.md:2');
    expect(said('notes/a.md')).toContain(`also at notes/copy.md:${idLine}`);
    expect(said('notes/a.md')).toContain('delete its id: line');
    expect(said('cards/o.md')).toContain('delete its kb:id comment');
  });

  it('warns of a last_reviewed in the future (2099-01-01) at its line and seeds the card as without it, not as reviewed in 2099 (found by hand)', () => {
    const root = writeKb({ 'notes/a.md': '---\nreview_count: 3\nlast_reviewed: 2099-01-01\n---\n# What is TTFT?\n\n## Answer\n\nTime to first token.\n' });
    const result = scan(root);
    expect(result.code).toBe(0);
    expect(parseJson(result.stdout).warnings).toEqual([
      expect.objectContaining({ file: 'notes/a.md', line: 3, message: expect.stringMatching(/^last_reviewed: 2099-01-01 is after today \(\d{4}-\d\d-\d\d\): no review happened then; ignored$/) }),
    ]);
    const [card] = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as { state: string; lastReview: string | null; reps: number }[];
    expect(card).toMatchObject({ state: 'new', lastReview: null, reps: 3 });
  });

  it('warns about a lab link to a lab that does not exist', () => {
    const root = writeKb({ 'notes/a.md': note('A', { extra: 'lab: no-such-lab' }) });
    const result = scan(root);
    expect(result.code).toBe(0);
    expect(parseJson(result.stdout).warnings).toEqual([
      expect.objectContaining({ file: 'notes/a.md', message: expect.stringContaining('no-such-lab') }),
    ]);
  });

  it('points a missing lab\'s warning at the line that names it, not the card\'s first line (a note\'s "---"; found by a session), on a scan and in kb doctor', () => {
    const deck = [
      '---', 'tags: [t]', 'lab: deck-lab', '---', '', // a deck's default lab: line 3 (lines before kb writes ids)
      '## Inherits the deck\'s lab?', '', 'A.', '',
      '## Has its own?', 'lab: own-lab', '', 'B.', '', // line 11
      '## At {r} tok/s?', '', '```kb-calc', 'vars:', '  r: { lab: "calc-lab", metric: ttft.p50, fallback: 3 }', 'answer: r * 2', '```', '', // line 19
    ].join('\n');
    const root = writeKb({ 'notes/a.md': '---\ntags: [t]\ndifficulty: easy\nlab: note-lab\n---\n# What is TTFT?\n\n## Answer\n\nT.\n', 'cards/d.md': deck });
    const expected = [['cards/d.md', 3, 'deck-lab'], ['cards/d.md', 13, 'own-lab'], ['cards/d.md', 22, 'calc-lab'], ['notes/a.md', 4, 'note-lab']];
    const first = scan(root);
    expect(first.code, first.stderr).toBe(0);
    // The lines once ids are written (a kb:id comment under each heading): the file as it is now.
    const at = (report: { warnings: Array<{ file: string; line: number; message: string }> }) => report.warnings.map((w) => [w.file, w.line, /lab "([^"]+)"/.exec(w.message)?.[1]]);
    const lines = readFileSync(join(root, 'cards/d.md'), 'utf8').split('\n');
    for (const [file, line, lab] of expected) if (file === 'cards/d.md') expect(lines[(line as number) - 1], `${lab}`).toContain(lab);
    expect(at(parseJson(first.stdout))).toEqual(expected);
    // Again from the database, the files unchanged; and as kb doctor says it.
    expect(at(parseJson(scan(root).stdout))).toEqual(expected);
    const doctor = runKb(['--kb', root, 'doctor']);
    for (const [file, line, lab] of expected) expect(doctor.stdout).toContain(`warning: ${file}:${line}: lab "${lab}" not found`);
  });

  it("warns of a file's missing lab beside its error, not only once the error is fixed (found as a user), and stores nothing of it", () => {
    const calc = (answer: string) => `\`\`\`kb-calc\nvars:\n  a: { min: 1, max: 5, step: 1 }\nanswer: ${answer}\nunit: ms\ntolerance: 1%\n\`\`\``;
    const deck = (answer: string, lab: string) => `---\ntags: [t]\n---\n\n## What is {a} doubled?\n<!-- kb:id=calccard0001 -->\n\n${calc(answer)}\n\n## A linked card?\n<!-- kb:id=linkcard0001 -->\nlab: ${lab}\nSome answer.\n`;
    const root = writeKb({ 'cards/deck.md': deck('a * (2', 'no-such-lab') });
    // At the card's lab: line (16 was its heading).
    const missingLab = (lab: string) => expect.objectContaining({ file: 'cards/deck.md', line: 18, message: expect.stringContaining(`lab "${lab}" not found`) });
    const first = scan(root);
    expect(first.code).toBe(1);
    const report = parseJson(first.stdout);
    expect(report.errors).toEqual([expect.objectContaining({ file: 'cards/deck.md', message: expect.stringContaining('file skipped') })]);
    expect(report.warnings).toEqual([missingLab('no-such-lab')]);
    expect(report.cards).toMatchObject({ added: 0, total: 0 });
    // Scanned clean once, then broken with another missing lab: the file's link as it is now, not the stored card's.
    writeFileSync(join(root, 'cards/deck.md'), deck('a * 2', 'no-such-lab'));
    expect(parseJson(scan(root).stdout).warnings).toEqual([missingLab('no-such-lab')]);
    writeFileSync(join(root, 'cards/deck.md'), deck('a * (2', 'other-missing-lab'));
    const broken = parseJson(scan(root).stdout);
    expect(broken.errors).toHaveLength(1);
    expect(broken.warnings).toEqual([missingLab('other-missing-lab')]);
    const db = openDb(root);
    expect(db.prepare("SELECT lab FROM cards WHERE id = 'linkcard0001'").get()).toEqual({ lab: 'no-such-lab' });
    db.close();
  });

  it('re-reads a touched file but writes no card when its content is the same', () => {
    const root = writeKb({ 'notes/a.md': note('A', { id: 'aaaaaaaaaaab' }) });
    expect(scan(root).code).toBe(0);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'notes/a.md'), later, later);
    const report = parseJson(scan(root).stdout);
    expect(report.files).toMatchObject({ read: 1, parsed: 0 });
    expect(report.cards).toMatchObject({ unchanged: 1, changed: 0 });
  });

  it('keeps the database where KB_DB says', () => {
    const root = writeKb({ 'notes/a.md': note('A') });
    const dbPath = join(writeKb({}), 'elsewhere.db');
    const result = runKb(['--kb', root, 'scan', '--json'], { env: { KB_DB: dbPath } });
    expect(result.code).toBe(0);
    expect(parseJson(result.stdout).dbPath).toBe(dbPath);
    expect(existsSync(dbPath)).toBe(true);
    expect(existsSync(join(root, '.kb'))).toBe(false);
  });
});

describe('kb scan\'s report', () => {
  it('says an unchanged file\'s warnings again on every scan until it is fixed (found as a user: the second scan said 0 warnings)', () => {
    const root = writeKb({ 'cards/deck.md': '## First?\n\nOne.\n\n## Empty?\n' });
    const warning = /warning: cards\/deck\.md:\d+: card has no answer under its heading/;
    const scan = () => {
      const run = runKb(['--kb', root, 'scan']);
      return run.stdout + run.stderr;
    };
    expect(scan()).toMatch(warning);
    const again = scan();
    expect(again).toMatch(warning);
    expect(again).toMatch(/0 errors, 1 warning/);
    writeFileSync(join(root, 'cards/deck.md'), readFileSync(join(root, 'cards/deck.md'), 'utf8') + '\nNow answered.\n');
    expect(scan()).not.toMatch(warning);
    expect(scan()).toMatch(/0 errors, 0 warnings/);
  });

  it('gives a warning the line of the file as written, ids included (found as a user: the lines before the ids went in)', () => {
    const root = writeKb({ 'cards/deck.md': '## First?\n\nOne.\n\n## Second?\n\nTwo.\n\n## Empty?\n' });
    const scan = runKb(['--kb', root, 'scan'], { env: { COLUMNS: '200' } });
    const warning = /warning: cards\/deck\.md:(\d+): card has no answer under its heading/.exec(scan.stdout + scan.stderr);
    expect(warning).not.toBeNull();
    const lines = readFileSync(join(root, 'cards/deck.md'), 'utf8').split('\n');
    // Two id comments went in above it: the heading is now on line 11, not 9.
    expect(lines[Number(warning![1]) - 1]).toBe('## Empty?');
  });

  it('counts in words that agree with their numbers (found as a user: "1 files", "in 1 files")', () => {
    const root = writeKb({ 'notes/metrics/ttft.md': note('What is TTFT?') });
    const first = runKb(['--kb', root, 'scan'], { env: { COLUMNS: '200' } });
    expect(first.stdout.split('\n')).toEqual([`${root}: 1 file, 1 parsed`, expect.stringMatching(/^cards: 1 added, /), 'ids written: 1 in 1 file', '0 errors, 0 warnings', '']);
  });
});
