// Issue #13, item 10: kb init adopts an existing folder of notes (an Obsidian vault, a folder
// of Markdown) as it is: only kb.json and .gitignore are written, no note is touched, and kb
// reads the notes where they are (kb.json's notesFolders).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runKb, tempDir } from '../helpers/kb-cli.ts';
import { fingerprint } from './scan-fixtures.ts';

function folder(files: Record<string, string>): string {
  const root = join(tempDir(), 'vault');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function dueCards(root: string): Array<{ path: string; deck: string; front: string }> {
  const due = runKb(['--kb', root, 'due', '--json']);
  expect(due.code, due.stderr).toBe(0);
  return (JSON.parse(due.stdout).cards as Array<{ path: string; deck: string; front: string }>).sort((a, b) => a.path.localeCompare(b.path));
}

describe('kb init on a folder of notes', () => {
  it('adopts an Obsidian vault: writes only kb.json and .gitignore, then reads its notes where they are', () => {
    const root = folder({
      'Top note.md': '# What is TTFT?\n\nThe time to the first token.\n',
      'topic/sub.md': "---\ncreated: '2025-10-19'\ntags: [x]\n---\n# Sub\n\n## Answer\n\nYes.\n",
      '.obsidian/app.json': '{}\n',
      '.obsidian/snippets/readme.md': '# not a note\n',
      'node_modules/pkg/README.md': '# not a note\n',
      '.gitignore': 'node_modules\n',
    });
    const before = runKb(['--kb', root, 'due']);
    expect(before.code).toBe(1);
    expect(before.stderr).toContain(`adopt it as it is with: kb init ${root}`);
    // kb's own folders at the top of a vault are read as kb's: a deck here.
    mkdirSync(join(root, 'cards'));
    writeFileSync(join(root, 'cards/deck.md'), '## A deck question?\n\nAn answer.\n');

    const files = fingerprint(root);
    const init = runKb(['init', root]);
    expect(init.code, init.stderr).toBe(0);
    // Decks counted apart from notes ("3 notes" counted the deck among them, found as a user).
    expect(init.stdout.replace(/\s+/g, ' ')).toMatch(/adopted .*vault: 2 notes and 1 card deck in \.\/ \(the whole folder\) wrote/);
    expect(init.stdout).toContain('cards/ is read as kb decks');
    expect(init.stdout).toMatch(/next: cd .* && kb review/);
    // Every file as it was, but .gitignore, which gained a line; and kb.json, new.
    const after = fingerprint(root);
    expect([...after.keys()].filter((path) => !files.has(path))).toEqual(['kb.json']);
    for (const [path, file] of files) if (path !== '.gitignore') expect(after.get(path)?.text, path).toBe(file.text);
    expect(readFileSync(join(root, '.gitignore'), 'utf8')).toBe("node_modules\n# kb's database and other state\n.kb/\n.*.kb-tmp\n");
    expect(JSON.parse(readFileSync(join(root, 'kb.json'), 'utf8'))).toMatchObject({ notesFolders: ['.'], newPerDay: 20 });

    expect(dueCards(root).map((card) => [card.path, card.deck, card.front])).toEqual([
      ['cards/deck.md', 'deck', 'A deck question?'],
      ['Top note.md', 'notes', 'What is TTFT?'],
      ['topic/sub.md', 'topic', 'Sub'],
    ]);

    // A second init says so and changes nothing.
    const config = readFileSync(join(root, 'kb.json'), 'utf8');
    const again = runKb(['init', root]);
    expect(again.code).toBe(0);
    expect(again.stdout.replace(/\s+/g, ' ')).toMatch(/already a knowledge base.*nothing changed/);
    expect(readFileSync(join(root, 'kb.json'), 'utf8')).toBe(config);
  });

  it('adopts a folder laid out as kb\'s (notes/ and nothing at the top) with notesFolders ["notes"], and writes a .gitignore', () => {
    const root = folder({ 'notes/a.md': '# A\n\nYes.\n', 'docs/not-a-note.md': '# Docs\n' });
    const init = runKb(['init', root, '--json']);
    expect(init.code).toBe(0);
    expect(JSON.parse(init.stdout).adopted).toMatchObject({ notes: 1, notesFolders: ['notes'] });
    expect(readFileSync(join(root, '.gitignore'), 'utf8')).toContain('.kb/');
    expect(dueCards(root).map((card) => card.path)).toEqual(['notes/a.md']);
    // A CRLF .gitignore gains CRLF lines (LF lines made a file of mixed line ends); one without a last line end gets one first.
    const crlf = folder({ 'notes/a.md': '# A\n\nYes.\n', '.gitignore': 'node_modules\r\ndist' });
    expect(runKb(['init', crlf]).code).toBe(0);
    expect(readFileSync(join(crlf, '.gitignore'), 'utf8')).toBe("node_modules\r\ndist\r\n# kb's database and other state\r\n.kb/\r\n.*.kb-tmp\r\n");
    // A .gitignore that already ignores the state folder gains only the temp files' line.
    const listed = folder({ 'notes/a.md': '# A\n\nYes.\n', '.gitignore': '/.kb\n' });
    expect(runKb(['init', listed]).code).toBe(0);
    expect(readFileSync(join(listed, '.gitignore'), 'utf8')).toBe("/.kb\n# kb's database and other state\n.*.kb-tmp\n");
    // The message names the folders there are: without a cards/ it said "1 note in notes/, cards/".
    expect(runKb(['init', folder({ 'notes/x/a.md': '# A\n\nYes.\n' })]).stdout).toMatch(/^adopted .*vault: 1 note in notes\/$/m);
    expect(runKb(['init', folder({ 'notes/x/a.md': '# A\n\nYes.\n', 'cards/deck.md': '## Q?\n\nA.\n' })]).stdout).toMatch(/^adopted .*vault: 1 note and 1 card deck in notes\/, cards\/$/m);
  });

  it('says so when it takes the bundled knowledge base from inside a folder of notes, and init . adopts that folder', () => {
    const root = folder({ 'notes/a.md': '# A question?\n\nYes.\n' });
    const hint = 'kb: this folder has notes but no kb.json: using the bundled knowledge base\nkb: make this folder yours with: kb init .\n';
    const bundled = runKb(['due', '--json'], { cwd: root });
    expect(bundled.code, bundled.stderr).toBe(0);
    expect(bundled.stderr).toContain(hint);
    for (const line of bundled.stderr.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(JSON.parse(bundled.stdout).cards.length).toBeGreaterThan(1);
    // A project with a README is no folder of notes: nothing said.
    const project = folder({ 'README.md': '# A project\n' });
    expect(runKb(['due', '--json'], { cwd: project }).stderr).not.toContain('kb init');
    // Nor is a notes/ folder with no Markdown in it, which kb init . refuses: the line had
    // said "this folder has notes" and sent the user to a command that said it had none.
    const noMarkdown = folder({ 'notes/draft.txt': 'a draft\n' });
    expect(runKb(['due', '--json'], { cwd: noMarkdown }).stderr).not.toContain('kb init');
    expect(runKb(['init', '.'], { cwd: noMarkdown }).stderr).toContain('holds no Markdown notes');

    const init = runKb(['init', '.'], { cwd: root });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/\nnext: kb review\n$/);
    const own = runKb(['due', '--json'], { cwd: root });
    expect(own.stderr).not.toContain('kb init');
    expect(JSON.parse(own.stdout).cards.map((card: { front: string }) => card.front)).toEqual(['A question?']);
    // A folder named with a space is quoted in the next step.
    const spaced = join(tempDir(), 'my notes');
    expect(runKb(['init', spaced, '--empty'], { env: { COLUMNS: '400' } }).stdout).toContain(`next: cd '${spaced}' && kb add`);
  });

  it('reads the folders kb.json names, and says where it looked when it finds nothing', () => {
    const root = folder({ 'kb.json': JSON.stringify({ notesFolders: ['Zettel', 'journal/'] }), 'Zettel/z.md': '# Z\n\nz\n', 'journal/2026/j.md': '# J\n\nj\n', 'other/o.md': '# O\n' });
    expect(dueCards(root).map((card) => [card.path, card.deck])).toEqual([['journal/2026/j.md', '2026'], ['Zettel/z.md', 'notes']]);
    // kb add writes into the first notes folder, so the new note is read at once.
    const add = runKb(['--kb', root, 'add', 'What is TPOT?', '--topic', 'metrics', '--answer', 'Time per output token.']);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain(join(root, 'Zettel/metrics/what-is-tpot.md'));
    expect(dueCards(root).map((card) => card.path)).toContain('Zettel/metrics/what-is-tpot.md');

    const empty = join(tempDir(), 'empty');
    expect(runKb(['init', empty, '--empty']).code).toBe(0);
    const scan = runKb(['--kb', empty, 'scan']);
    expect(scan.stdout).toContain('no notes or cards found: looked for .md files in notes/, cards/');
    const due = runKb(['--kb', empty, 'due']);
    expect(due.stderr).toContain('looked for .md files in notes/, cards/');
  });

  it('refuses a notes folder outside the knowledge base, naming the key', () => {
    const root = folder({ 'kb.json': JSON.stringify({ notesFolders: ['../elsewhere'] }), 'notes/a.md': '# A\n' });
    const scan = runKb(['--kb', root, 'scan']);
    expect(scan.code).toBe(1);
    expect(scan.stderr).toContain(`${join(root, 'kb.json')}: notesFolders.0: a folder inside the knowledge base`);
    expect(existsSync(join(root, '.kb'))).toBe(false);
  });

  it('runs the labs kb ships in an adopted vault, which has none of its own, and a lab of its own comes first', () => {
    const root = folder({
      '推理/连续批处理.md': '---\nlab: batching\n---\n# 连续批处理为什么能提高吞吐？\n\n## 答案\n\n每一步都能换入新请求。\n',
      'notes-on-ttft.md': '---\nlab: no-such-lab\n---\n# What is TTFT?\n\n## Answer\n\nQueue wait plus prefill.\n',
    });
    expect(runKb(['init', root]).code).toBe(0);
    // The card's link to kb's batching lab is no unknown lab.
    const scan = runKb(['--kb', root, 'scan']);
    expect(scan.code, scan.stderr).toBe(0);
    expect(scan.stderr).toContain('lab "no-such-lab" not found');
    expect(scan.stderr).not.toContain('lab "batching"');
    const list = runKb(['--kb', root, 'lab', 'list']);
    expect(list.stdout).toMatch(/^ttft-breakdown\s+TTFT breakdown/m);
    const run = runKb(['--kb', root, 'lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'workload.requests=8']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/TTFT/);
    // A lab file of the vault's own, named as one of kb's, is the one used.
    mkdirSync(join(root, 'lab'));
    writeFileSync(join(root, 'lab/batching.md'), readFileSync(join(repoRoot, 'lab/batching.md'), 'utf8').replace(/^title: .*$/m, 'title: My own batching lab'));
    expect(runKb(['--kb', root, 'lab', 'show', 'batching']).stdout).toContain('My own batching lab');
  });
  it('adopts a Zettelkasten vault whose notes use id: for ids of their own: kb keeps its ids under kb_id: and never reads or changes id: (found adopting a vault)', () => {
    const own: Record<string, string> = {
      'timestamp.md': '---\nid: 202311201230\ntags: [zk]\n---\n# What is a warp?\n\n32 threads.\n',
      'title.md': '---\r\nid: My Zettel\r\n---\r\n# What is an SM?\r\n\r\nA streaming multiprocessor.\r\n',
      'list.md': '---\nid: [a, b]\n---\n# What is a CTA?\n\nA block of threads.\n',
      // A word kb could read as an id of its own: still the note's, never claimed.
      'word.md': '---\nid: abc123\n---\n# What is HBM?\n\nHigh-bandwidth memory.\n',
      'none.md': '# What is L2?\n\nThe shared cache.\n',
      '.obsidian/app.json': '{}\n',
    };
    const root = folder(own);
    const init = runKb(['init', root], { env: { COLUMNS: '400' } });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("card ids: the notes use id: for ids of their own (list.md:2: id: [a, b]), so kb keeps its card ids under kb_id: (kb.json's idKey) and never reads or changes id:");
    expect(JSON.parse(readFileSync(join(root, 'kb.json'), 'utf8'))).toMatchObject({ notesFolders: ['.'], idKey: 'kb_id' });

    const scan = runKb(['--kb', root, 'scan', '--json']);
    expect(scan.code, scan.stdout + scan.stderr).toBe(0);
    expect(JSON.parse(scan.stdout)).toMatchObject({ errors: [], cards: { added: 5, total: 5 } });
    // Each note is what it was with one line added, kb_id: last in its frontmatter (its own line endings).
    const idOf = (path: string) => /^kb_id: (\w+)\r?$/m.exec(readFileSync(join(root, path), 'utf8'))![1];
    for (const path of ['timestamp.md', 'title.md', 'list.md', 'word.md']) {
      const eol = own[path].includes('\r\n') ? '\r\n' : '\n';
      const closing = own[path].indexOf(`${eol}---${eol}`) + eol.length;
      expect(readFileSync(join(root, path), 'utf8'), path).toBe(`${own[path].slice(0, closing)}kb_id: ${idOf(path)}${eol}${own[path].slice(closing)}`);
    }
    expect(readFileSync(join(root, 'none.md'), 'utf8')).toBe(`---\nkb_id: ${idOf('none.md')}\n---\n${own['none.md']}`);
    expect(new Set(dueCards(root).map((card) => card.front))).toEqual(new Set(['What is a warp?', 'What is an SM?', 'What is a CTA?', 'What is HBM?', 'What is L2?']));

    // A rating writes the review fields back beside kb_id:, and undo takes them back, byte for byte.
    const before = readFileSync(join(root, 'timestamp.md'), 'utf8');
    const rate = runKb(['--kb', root, 'rate', idOf('timestamp.md'), 'good']);
    expect(rate.code, rate.stderr).toBe(0);
    expect(rate.stdout).toContain('frontmatter updated: timestamp.md');
    const rated = readFileSync(join(root, 'timestamp.md'), 'utf8');
    expect(rated).toMatch(new RegExp(`^---\nid: 202311201230\ntags: \\[zk\\]\nkb_id: ${idOf('timestamp.md')}\nlast_reviewed: '\\d{4}-\\d\\d-\\d\\d'\nnext_review: '[\\d-]+'\nreview_count: 1\nmastery_level: [\\d.]+\n---\n# What is a warp\\?`));
    const doctor = runKb(['--kb', root, 'doctor']);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(runKb(['--kb', root, 'undo']).code).toBe(0);
    expect(readFileSync(join(root, 'timestamp.md'), 'utf8')).toBe(before);

    // kb add writes kb_id:, and a second scan changes nothing.
    const add = runKb(['--kb', root, 'add', 'What is a warp scheduler?', '--answer', 'It issues instructions.', '--json']);
    expect(add.code, add.stderr).toBe(0);
    const added = JSON.parse(add.stdout) as { path: string; id: string };
    expect(readFileSync(join(root, added.path), 'utf8')).toContain(`\nkb_id: ${added.id}\n---\n`);
    expect(readFileSync(join(root, added.path), 'utf8')).not.toMatch(/^id:/m);
    expect(JSON.parse(runKb(['--kb', root, 'scan', '--json']).stdout)).toMatchObject({ errors: [], cards: { total: 6 } });
  });

  it('keeps id: where the notes hold ids of kb\'s own form, and says how to give kb another key when a note\'s id: is not one', () => {
    const root = folder({ 'a.md': '---\nid: fepiwcvxog4b\n---\n# A?\n\nYes.\n', 'b.md': '# B?\n\nYes.\n' });
    const init = runKb(['init', root]);
    expect(init.code).toBe(0);
    expect(init.stdout).not.toContain('card ids');
    expect(JSON.parse(readFileSync(join(root, 'kb.json'), 'utf8'))).toMatchObject({ idKey: 'id' });
    // A vault adopted as it was before kb_id: each such note's error says what to do.
    writeFileSync(join(root, 'c.md'), '---\nid: 202311201230\n---\n# C?\n\nYes.\n');
    const scan = runKb(['--kb', root, 'scan']);
    expect(scan.code).toBe(1);
    expect(scan.stderr.replace(/\s+/g, ' ')).toContain('c.md:2: id: expected letters, digits, - or _ (as text, quoted if it looks like a number), got 202311201230; note skipped (if your notes use id: for ids of their own, set "idKey": "kb_id" in kb.json');
    // A key kb reads as something else is refused, naming it.
    writeFileSync(join(root, 'kb.json'), JSON.stringify({ notesFolders: ['.'], idKey: 'tags' }));
    const refused = runKb(['--kb', root, 'due']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('kb.json: idKey: a key kb reads as something else');
  });

  it('keeps every rated card when kb.json\'s idKey is changed afterwards: the notes are read again and their ids carried to the new key (found probing idKey)', () => {
    const root = folder({ 'a.md': '# A?\n\nYes.\n', 'b.md': '# B?\n\nYes.\n' });
    expect(runKb(['init', root]).code).toBe(0);
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const idOf = (path: string, key: string) => new RegExp(`^${key}: (\\w+)$`, 'm').exec(readFileSync(join(root, path), 'utf8'))?.[1];
    const [a, b] = [idOf('a.md', 'id')!, idOf('b.md', 'id')!];
    expect(runKb(['--kb', root, 'rate', a, 'good']).code).toBe(0);
    // A Zettel note appears; its error says to set idKey kb_id, and the user does.
    writeFileSync(join(root, 'z.md'), '---\nid: 202311201230\n---\n# Z?\n\nYes.\n');
    const config = JSON.parse(readFileSync(join(root, 'kb.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(root, 'kb.json'), JSON.stringify({ ...config, idKey: 'kb_id' }));
    const scan = runKb(['--kb', root, 'scan', '--json']);
    expect(scan.code, scan.stdout + scan.stderr).toBe(0);
    expect(JSON.parse(scan.stdout)).toMatchObject({ errors: [], cards: { added: 1, removed: 0, total: 3, orphans: 0 }, readAgain: "kb.json's idKey changed from id to kb_id" });
    // a.md and b.md keep their cards: the same ids, now under kb_id:, their id: lines as they were.
    expect([idOf('a.md', 'kb_id'), idOf('b.md', 'kb_id')]).toEqual([a, b]);
    expect([idOf('a.md', 'id'), idOf('b.md', 'id'), idOf('z.md', 'id')]).toEqual([a, b, '202311201230']);
    // A rating finds its note and writes its fields back.
    const rate = runKb(['--kb', root, 'rate', b, 'good']);
    expect(rate.code, rate.stderr).toBe(0);
    expect(rate.stderr).toBe('');
    expect(rate.stdout).toContain('frontmatter updated: b.md');
    const cards = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as Array<{ id: string; reps: number }>;
    expect(Object.fromEntries(cards.filter((card) => card.id === a || card.id === b).map((card) => [card.id, card.reps]))).toEqual({ [a]: 1, [b]: 1 });
  });

  it('reads every note again when kb.json\'s notesFolders change: a note\'s deck is its folder below the new notes folder (found probing idKey)', () => {
    const root = folder({ 'Zettel/a.md': '# A?\n\nYes.\n', 'Zettel/Sub/b.md': '# B?\n\nYes.\n', 'c.md': '# C?\n\nYes.\n' });
    expect(runKb(['init', root]).code).toBe(0);
    expect(new Map(dueCards(root).map((card) => [card.front, card.deck]))).toEqual(new Map([['A?', 'Zettel'], ['B?', 'Zettel/Sub'], ['C?', 'notes']]));
    const config = JSON.parse(readFileSync(join(root, 'kb.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(root, 'kb.json'), JSON.stringify({ ...config, notesFolders: ['Zettel'] }));
    // Said, so that reading every unchanged note is no mystery.
    expect(runKb(['--kb', root, 'scan']).stdout).toContain("every file read again: kb.json's notesFolders changed from . to Zettel");
    // Unchanged files, read again all the same: their decks are as the new folders say.
    expect(new Map(dueCards(root).map((card) => [card.front, card.deck]))).toEqual(new Map([['A?', 'notes'], ['B?', 'Sub']]));
  });
});
