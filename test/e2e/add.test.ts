// kb add through the real CLI: notes and deck cards land in the knowledge base with their
// ids, are in today's queue at once, and every refusal leaves the files as they were.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKnowledgeFile } from '../../src/kb/parse-file.ts';
import { kbBin, kbEnv, repoRoot, runKb, runKbAtTerminal, tempDir, terminalCommand, withBundledLabs, writeKb } from '../helpers/kb-cli.ts';

interface DueJson {
  cards: Array<{ id: string; queue: string; kind: string; path: string; line: number; front: string; lab: string | null }>;
}

interface AddJson {
  path: string;
  id: string;
  kind: 'note' | 'card';
  line: number;
  scan: { errors: unknown[]; warnings: unknown[]; cards: { added: number; total: number } };
}

/** A personal knowledge base with one lab and one note already in it. */
function personalKb(files: Record<string, string | Buffer> = {}): string {
  return writeKb({
    'kb.json': '{}\n',
    'lab/paged-kv.md': readFileSync(join(repoRoot, 'lab/paged-kv.md')),
    'notes/metrics/old.md': '# An older note\n\nIts answer.\n',
    ...files,
  });
}

function due(root: string): DueJson {
  const result = runKb(['--kb', root, 'due', '--json']);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as DueJson;
}

/**
 * A shell script to stand in for $EDITOR: records its arguments, then runs `body` on the file ($f).
 * Named vi, as kb passes +LINE only to editors known to take it; any other name gets the file alone.
 */
function editor(body: string, name = 'vi'): { path: string; argsFile: string } {
  const dir = tempDir('kb-editor-');
  const path = join(dir, name);
  const argsFile = join(dir, 'args');
  writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\nfor f; do :; done\n${body}\n`);
  chmodSync(path, 0o755);
  return { path, argsFile };
}

const DECK_CRLF = '---\r\ntags: [serving]\r\n---\r\n\r\n## What is speculative decoding?\r\n<!-- kb:id=aaaabbbbcccc -->\r\nA draft proposes, the target verifies.\r\n';

describe('kb add', () => {
  it('adds a note that kb due lists at once, in the format of kb\'s notes', () => {
    const root = personalKb();
    const result = runKb(['add', 'What', 'does', 'TTFT', 'measure?', '--topic', 'metrics', '--tags', 'metrics,ttft', '--difficulty', 'easy', '--lab', 'paged-kv',
      '--answer', 'The time from submitting a request to its first token.'], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const path = 'notes/metrics/what-does-ttft-measure.md';
    expect(result.stdout).toContain(`added note ${path}`);
    expect(result.stdout).toMatch(/card id [a-z][a-z2-7]{11}\n/);
    expect(result.stdout).toContain('kb review');
    const id = /card id (\S+)/.exec(result.stdout)?.[1];

    const text = readFileSync(join(root, path), 'utf8');
    const parsed = parseKnowledgeFile(path, text);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.cards[0]).toMatchObject({ id, front: 'What does TTFT measure?', back: 'The time from submitting a request to its first token.', tags: ['metrics', 'ttft'], lab: 'paged-kv' });
    expect(parsed.cards[0].seed).toMatchObject({ reviewCount: 0, lastReviewed: null, difficulty: 'easy', masteryLevel: 0 });
    expect(parsed.cards[0].seed?.created).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(parsed.cards[0].seed?.nextReview).toBe(parsed.cards[0].seed?.created);

    const listed = due(root).cards.find((card) => card.id === id);
    expect(listed).toMatchObject({ queue: 'new', kind: 'note', path, front: 'What does TTFT measure?', lab: 'paged-kv' });
  });

  it('prints a long note path whole to a pipe, where a script reads it and a user copies it (found as a user: it broke after "on-a-")', () => {
    const root = personalKb();
    const question = 'Why is batch-1 decode memory-bandwidth bound on a GPU?';
    const path = 'notes/performance/why-is-batch-1-decode-memory-bandwidth-bound-on-a-gpu.md';
    const inside = runKb(['add', question, '--topic', 'performance', '--answer', 'x'], { cwd: root });
    expect(inside.code, inside.stderr).toBe(0);
    expect(inside.stdout.split('\n')[0]).toBe(`added note ${path}`);
    // From elsewhere the path is absolute, and wider still: whole, on a line of its own.
    const elsewhere = runKb(['--kb', root, 'add', `${question} Really?`, '--topic', 'performance', '--answer', 'x']);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout.split('\n').slice(0, 2)).toEqual(['added note', join(root, path.replace('.md', '-really.md'))]);
    // The lines that are prose still fit 80 columns.
    for (const run of [inside, elsewhere]) expect(run.stdout.split('\n').slice(1).filter((line) => line.length > 80 && !line.startsWith('/'))).toEqual([]);
  });

  it("says when a new note waits behind today's new-card limit instead of claiming it is due (found as a user)", () => {
    // Three new cards and a limit of two: the note added fourth is not in today's queue.
    const root = personalKb({ 'kb.json': '{ "newPerDay": 2 }\n', 'notes/metrics/b.md': '# B?\n\nB.\n', 'notes/metrics/c.md': '# C?\n\nC.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const result = runKb(['--kb', root, 'add', 'What is TPOT?', '--topic', 'metrics', '--answer', 'Time per output token.'], { env: { COLUMNS: '200' } });
    expect(result.code, result.stderr).toBe(0);
    // One line where it fits, wrapped under "new: " where not: two lines broke it at 60 columns.
    expect(result.stdout).toContain("new: it waits behind today's 2 new cards (newPerDay in kb.json) for a later session; kb quiz asks it any time\n");
    const at80 = runKb(['--kb', root, 'add', 'What is TPOT now?', '--topic', 'metrics', '--answer', 'Time per output token.']);
    expect(at80.stdout).toContain("new: it waits behind today's 2 new cards (newPerDay in kb.json) for a later\n     session; kb quiz asks it any time\n");
    expect(result.stdout).not.toContain('due today');
    const fresh = personalKb();
    expect(runKb(['--kb', fresh, 'add', 'What is TPOT?', '--answer', 'Time per output token.']).stdout).toContain('due today: kb review');
  });

  it('says a limit of one new card in the singular, and that newPerDay 0 brings no new card on a later day either (found as a user: "today\'s 0 new cards ... for a later session")', () => {
    const one = personalKb({ 'kb.json': '{ "newPerDay": 1 }\n' });
    const behindOne = runKb(['--kb', one, 'add', 'What is TPOT?', '--topic', 'metrics', '--answer', 'Time per output token.'], { env: { COLUMNS: '200' } });
    expect(behindOne.stdout).toContain("new: it waits behind today's 1 new card (newPerDay in kb.json) for a later session; kb quiz asks it any time\n");
    const paused = personalKb({ 'kb.json': '{ "newPerDay": 0 }\n' });
    const none = runKb(['--kb', paused, 'add', 'What is TPOT?', '--answer', 'Time per output token.'], { env: { COLUMNS: '200' } });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('new: newPerDay is 0 in kb.json, so kb review brings in no new card until you raise it; kb quiz asks it any time\n');
    expect(none.stdout).not.toContain('later session');
  });

  it('puts a note in notes/inbox by default, a Chinese question under its own words, and prints JSON with the scan', () => {
    const root = personalKb();
    const result = runKb(['--kb', root, 'add', '什么是首字延迟？', '--answer', '从提交请求到第一个输出 token 的时间。', '--json']);
    expect(result.code).toBe(0);
    const added = JSON.parse(result.stdout) as AddJson;
    expect(added).toMatchObject({ path: 'notes/inbox/什么是首字延迟.md', kind: 'note', line: 1, scan: { errors: [], warnings: [], cards: { total: 2 } } });
    expect(parseKnowledgeFile(added.path, readFileSync(join(root, added.path), 'utf8')).cards[0].tags).toEqual(['inbox']);
    expect(due(root).cards.map((card) => card.id)).toContain(added.id);
    // Topics and decks named in Chinese are folders and files like any other.
    const topic = runKb(['--kb', root, 'add', '什么是连续批处理？', '--topic', '调度/批处理', '--answer', '每一步重新组批。', '--json']);
    expect(topic.code, topic.stderr).toBe(0);
    expect((JSON.parse(topic.stdout) as AddJson).path).toBe('notes/调度/批处理/什么是连续批处理.md');
    const deck = runKb(['--kb', root, 'add', '首字延迟包括什么？', '--deck', '指标', '--answer', '排队等待加上预填充。']);
    expect(deck.code, deck.stderr).toBe(0);
    expect(readFileSync(join(root, 'cards/指标.md'), 'utf8')).toContain('## 首字延迟包括什么？');
    for (const bad of ['../调度', '.隐藏', '调度/../x', '调 度']) {
      const refused = runKb(['--kb', root, 'add', 'Q?', '--topic', bad, '--answer', 'x']);
      expect(refused.code, bad).toBe(1);
      expect(refused.stderr).toContain(`topic "${bad}": use letters, digits`);
    }
  });

  it('puts a note in the folder there is whose name differs only in case (a vault\'s Inbox/ and GPU/), not in a new one beside it (found adopting a vault)', () => {
    const root = writeKb({
      'kb.json': '{"notesFolders": ["."]}\n',
      'Inbox/old.md': '# Old?\n\nYes.\n',
      'Topics/GPU/warp.md': '# What is a warp?\n\n32 threads.\n',
      'Two/Aa/x.md': '# X?\n\nX.\n',
      'Two/AA/y.md': '# Y?\n\nY.\n',
    });
    const inbox = runKb(['--kb', root, 'add', 'Q one?', '--answer', 'a', '--json']);
    expect(inbox.code, inbox.stderr).toBe(0);
    expect((JSON.parse(inbox.stdout) as AddJson).path).toBe('Inbox/q-one.md');
    // Each folder of a topic as it is spelled on disk; one not there yet is made as asked.
    const gpu = runKb(['--kb', root, 'add', 'Q two?', '--answer', 'b', '--topic', 'topics/gpu/new', '--json']);
    expect(gpu.code, gpu.stderr).toBe(0);
    const added = JSON.parse(gpu.stdout) as AddJson;
    expect(added.path).toBe('Topics/GPU/new/q-two.md');
    // Its default tag is the topic as its folder spells it, as its deck is.
    expect(readFileSync(join(root, added.path), 'utf8')).toContain('tags:\n- Topics/GPU/new\n');
    expect(due(root).cards.find((card) => card.id === added.id)).toMatchObject({ path: added.path });
    expect(readdirSync(root).filter((name) => ['inbox', 'topics'].includes(name))).toEqual([]);
    // Two folders that differ only in case: neither is guessed.
    const two = runKb(['--kb', root, 'add', 'Q three?', '--answer', 'c', '--topic', 'two/aA']);
    expect(two.code).toBe(1);
    expect(two.stderr).toContain('topic "two/aA": Two/AA/ and Two/Aa/ differ only in case');
    expect(readdirSync(join(root, 'Two')).sort()).toEqual(['AA', 'Aa']);
    // Spelled exactly, a folder is that folder.
    expect(runKb(['--kb', root, 'add', 'Q four?', '--answer', 'd', '--topic', 'Two/Aa']).code).toBe(0);
  });

  it('creates a deck, then appends to an existing CRLF deck byte-exact', () => {
    const root = personalKb({ 'cards/serving.md': DECK_CRLF });
    const created = runKb(['--kb', root, 'add', 'Why is decode memory-bound?', '--deck', 'prefill-decode', '--answer', 'Each step reads all the weights for one token per sequence.', '--json']);
    expect(created.code).toBe(0);
    const first = JSON.parse(created.stdout) as AddJson;
    expect(first).toMatchObject({ path: 'cards/prefill-decode.md', kind: 'card', line: 5 });
    expect(readFileSync(join(root, first.path), 'utf8')).toBe(`---\ntags: [prefill-decode]\n---\n\n## Why is decode memory-bound?\n<!-- kb:id=${first.id} -->\nEach step reads all the weights for one token per sequence.\n`);

    const appended = runKb(['--kb', root, 'add', 'What does disaggregation cost?', '--deck', 'serving', '--lab', 'paged-kv', '--answer', 'Moving the KV cache between machines.']);
    expect(appended.code).toBe(0);
    expect(appended.stdout).toContain('cards/serving.md:9');
    const id = /card id (\S+)/.exec(appended.stdout)?.[1];
    const bytes = readFileSync(join(root, 'cards/serving.md'));
    expect(bytes.subarray(0, DECK_CRLF.length).toString('utf8')).toBe(DECK_CRLF);
    expect(bytes.subarray(DECK_CRLF.length).toString('utf8')).toBe(`\r\n## What does disaggregation cost?\r\n<!-- kb:id=${id} -->\r\nlab: paged-kv\r\nMoving the KV cache between machines.\r\n`);

    const cards = due(root).cards;
    expect(cards.find((card) => card.id === first.id)).toMatchObject({ kind: 'card', path: 'cards/prefill-decode.md', line: 5 });
    expect(cards.find((card) => card.id === id)).toMatchObject({ kind: 'card', path: 'cards/serving.md', line: 9, lab: 'paged-kv' });
  });

  it('says the line the new card has after the scan that follows (ids it wrote into older cards moved it down; found as a user)', () => {
    const root = personalKb({ 'cards/nonl.md': '## No newline Q?\nA.' });
    const added = runKb(['--kb', root, 'add', 'Appended?', '--deck', 'nonl', '--answer', 'B.']);
    expect(added.code, added.stderr).toBe(0);
    const line = Number(/added card to \S*cards\/nonl\.md:(\d+)/.exec(added.stdout)?.[1]);
    expect(readFileSync(join(root, 'cards/nonl.md'), 'utf8').split('\n')[line - 1]).toBe('## Appended?');
  });

  it('reads the answer from stdin with --answer -', () => {
    const root = personalKb();
    const result = runKb(['--kb', root, 'add', 'What is ITL?', '--answer', '-'], { input: 'The gaps between consecutive tokens,\r\nall requests pooled.\r\n' });
    expect(result.code).toBe(0);
    const card = parseKnowledgeFile('notes/inbox/what-is-itl.md', readFileSync(join(root, 'notes/inbox/what-is-itl.md'), 'utf8')).cards[0];
    expect(card.back).toBe('The gaps between consecutive tokens,\nall requests pooled.');
  });

  it('opens $EDITOR at the answer with --edit and keeps what was written there', () => {
    const root = personalKb({ 'cards/serving.md': DECK_CRLF });
    const writer = editor(`printf 'Written in the editor.\\r\\n' >> "$f"`);
    const note = runKbAtTerminal(['--kb', root, 'add', 'What is goodput?', '--edit'], { env: { EDITOR: writer.path, VISUAL: '' } });
    expect(note.code).toBe(0);
    const path = join(root, 'notes/inbox/what-is-goodput.md');
    const [lineArg, fileArg] = readFileSync(writer.argsFile, 'utf8').trim().split('\n');
    expect(fileArg).toBe(path);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines[Number(lineArg.slice(1)) - 2]).toBe('');
    expect(lines[Number(lineArg.slice(1)) - 3]).toBe('## Answer');
    expect(parseKnowledgeFile('notes/inbox/what-is-goodput.md', lines.join('\n')).cards[0].back).toBe('Written in the editor.');

    const card = runKbAtTerminal(['--kb', root, 'add', 'What is the draft model?', '--deck', 'serving', '--edit'], { env: { EDITOR: writer.path, VISUAL: '' } });
    expect(card.code).toBe(0);
    expect(readFileSync(writer.argsFile, 'utf8').split('\n')[0]).toBe('+11');
    const deck = readFileSync(join(root, 'cards/serving.md'), 'utf8');
    expect(deck.startsWith(DECK_CRLF)).toBe(true);
    expect(parseKnowledgeFile('cards/serving.md', deck).cards[1].back).toBe('Written in the editor.');

    // An editor kb does not know to take +LINE (a script, gedit) gets the file alone: "+14" was
    // a second file to it (VS Code opened an empty one).
    const script = editor(`printf 'Written in the editor.\\n' >> "$f"`, 'my-editor.sh');
    const plain = runKbAtTerminal(['--kb', root, 'add', 'What is prefill?', '--edit'], { env: { EDITOR: script.path, VISUAL: '' } });
    expect(plain.code).toBe(0);
    expect(readFileSync(script.argsFile, 'utf8')).toBe(`${join(root, 'notes/inbox/what-is-prefill.md')}\n`);
  });

  it('adds nothing when the answer is left empty in the editor, or the editor fails', () => {
    const root = personalKb({ 'cards/serving.md': DECK_CRLF });
    const leaves = editor('true');
    const note = runKbAtTerminal(['--kb', root, 'add', 'What is goodput?', '--edit'], { env: { EDITOR: leaves.path, VISUAL: '' } });
    expect(note.code).toBe(1);
    expect(note.stderr).toBe('kb: nothing added: the answer was left empty\n');
    expect(existsSync(join(root, 'notes/inbox/what-is-goodput.md'))).toBe(false);

    const card = runKbAtTerminal(['--kb', root, 'add', 'Q?', '--deck', 'serving', '--edit'], { env: { EDITOR: leaves.path, VISUAL: '' } });
    expect(card.code).toBe(1);
    expect(card.stderr).toContain('nothing added');
    expect(readFileSync(join(root, 'cards/serving.md'), 'utf8')).toBe(DECK_CRLF);

    const fails = editor('exit 3');
    const failed = runKbAtTerminal(['--kb', root, 'add', 'Q?', '--edit'], { env: { EDITOR: fails.path, VISUAL: '' } });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/nothing added: the editor .* exited with 3/);
    expect(readdirSync(join(root, 'notes/inbox'))).toEqual([]);
    expect(due(root).cards.map((c) => c.front).sort()).toEqual(['An older note', 'What is speculative decoding?']);
  });

  it('refuses --edit without a terminal, before anything is written: vi was started on a pipe (found as a user)', () => {
    const root = personalKb();
    const ran = join(tempDir('kb-editor-'), 'ran');
    const started = editor(`touch '${ran}'`);
    // stdin and stdout pipes (runKb), as in `kb add "Q?" --edit < /dev/null | cat`; then stdin a terminal, stdout a file.
    const piped = runKb(['--kb', root, 'add', 'What is goodput?', '--topic', 'metrics', '--edit'], { env: { EDITOR: started.path, VISUAL: '' } });
    const outFile = join(tempDir('kb-out-'), 'out');
    const command = `${[process.execPath, kbBin, '--kb', root, 'add', 'What is goodput?', '--topic', 'metrics', '--edit'].map((w) => `'${w}'`).join(' ')} > '${outFile}'`;
    const toFile = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', env: { ...kbEnv(tempDir('kb-home-')), EDITOR: started.path, VISUAL: '' } });
    for (const run of [piped, { code: toFile.status, stderr: toFile.stdout.replaceAll('\r\n', '\n'), stdout: readFileSync(outFile, 'utf8') }]) {
      expect(run.code).toBe(2);
      expect(run.stderr).toBe('kb: --edit needs a terminal for the editor (stdin or stdout is no TTY); nothing was added: give the answer with --answer TEXT, or --answer - to read it from stdin\n');
      expect(run.stdout).toBe('');
    }
    expect(existsSync(ran)).toBe(false);
    expect(existsSync(join(root, 'notes/metrics/what-is-goodput.md'))).toBe(false);
    expect(readdirSync(join(root, 'notes'))).toEqual(['metrics']);
    expect(readdirSync(join(root, 'notes/metrics'))).toEqual(['old.md']);
  });

  it('adds nothing when Ctrl-C ends the editor (the terminal signals kb\'s whole process group)', async () => {
    const root = personalKb();
    // The editor says it runs, then waits for the Ctrl-C that the terminal sends to every
    // process of the foreground group: kb and the editor alike.
    const dir = tempDir('kb-editor-');
    const started = join(dir, 'started');
    const waits = editor(`touch '${started}'\nsleep 30`);
    const home = tempDir('kb-home-');
    // On a terminal of its own (--edit needs one), where Ctrl-C typed at it is a SIGINT to its foreground job.
    const stderrFile = join(dir, 'stderr');
    const child = spawn('script', terminalCommand([process.execPath, kbBin, '--kb', root, 'add', 'What is goodput?', '--edit'], stderrFile), {
      env: { ...kbEnv(home), EDITOR: waits.path, VISUAL: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const code = new Promise<number | null>((resolve) => child.on('close', (exit) => resolve(exit)));
    for (let i = 0; i < 300 && !existsSync(started); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(started)).toBe(true);
    child.stdin!.write('\x03');
    expect(await code).toBe(130);
    const stderr = readFileSync(stderrFile, 'utf8');
    expect(stderr).toMatch(/^kb: nothing added: the editor .* was interrupted \(Ctrl-C\)\n$/);
    expect(existsSync(join(root, 'notes/inbox/what-is-goodput.md'))).toBe(false);
    expect(due(root).cards.map((c) => c.front)).toEqual(['An older note']);
  }, 30_000);

  it('refuses the bundled knowledge base with one line pointing to kb init', () => {
    const before = existsSync(join(repoRoot, 'notes/inbox'));
    const home = tempDir('kb-home-');
    const result = runKb(['add', 'What is TTFT?', '--answer', 'x'], { env: { HOME: home } });
    expect(result.code).toBe(1);
    expect(existsSync(join(home, '.local/share/kb/bundled.db'))).toBe(false);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/bundled knowledge base is read-only.*kb init DIR/);
    expect(existsSync(join(repoRoot, 'notes/inbox'))).toBe(before);
  });

  it('refuses an existing file, an unknown lab, a missing or empty answer and an empty question, changing nothing', () => {
    const root = personalKb({ 'notes/inbox/what-is-ttft.md': '# Mine\n\nkeep me\n' });
    const existing = runKb(['--kb', root, 'add', 'What is TTFT?', '--answer', 'x']);
    expect(existing.code).toBe(1);
    expect(existing.stderr).toContain('notes/inbox/what-is-ttft.md already exists');
    expect(readFileSync(join(root, 'notes/inbox/what-is-ttft.md'), 'utf8')).toBe('# Mine\n\nkeep me\n');

    const lab = runKb(['--kb', root, 'add', 'Q?', '--lab', 'nope', '--answer', 'x']);
    expect(lab.code).toBe(1);
    expect(lab.stderr).toBe(`kb: unknown lab "nope"; labs: ${withBundledLabs(['paged-kv']).join(', ')}\n`);

    const none = runKb(['--kb', root, 'add', 'Q?']);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe('kb: no answer given: use --answer TEXT, --answer - (stdin) or --edit ($EDITOR)\n');
    const empty = runKb(['--kb', root, 'add', 'Q?', '--answer', '-'], { input: '\n  \n' });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('the answer is empty');
    // A NUL byte: kb scan would skip the note as binary (it was written, then never asked: found by a fault probe).
    const binary = runKb(['--kb', root, 'add', 'Q4?', '--answer', '-'], { input: 'a\0b' });
    expect(binary.code).toBe(1);
    expect(binary.stderr).toBe('kb: the question or answer holds a NUL byte (binary input?); nothing was added\n');
    const blank = runKb(['--kb', root, 'add', '  ', '--answer', 'x']);
    expect(blank.code).toBe(1);
    expect(blank.stderr).toContain('the question is empty');
    const deckFlags = runKb(['--kb', root, 'add', 'Q?', '--deck', 'serving', '--tags', 'x', '--answer', 'x']);
    expect(deckFlags.code).toBe(1);
    expect(deckFlags.stderr).toContain('--tags is for notes');

    expect(readdirSync(join(root, 'notes/inbox'))).toEqual(['what-is-ttft.md']);
    expect(existsSync(join(root, 'cards/serving.md'))).toBe(false);
  });

  it('refuses a folder as stdin for --answer - as unreadable, not as an empty answer, and writes nothing', () => {
    const root = personalKb();
    // `kb add "Q?" --answer - < somedir`: the shell hands kb the folder as its stdin.
    const folder = openSync(tempDir('kb-stdin-folder-'), 'r');
    let result;
    try {
      result = spawnSync(process.execPath, [kbBin, '--kb', root, 'add', 'What is TPOT?', '--answer', '-'], {
        stdio: [folder, 'pipe', 'pipe'], encoding: 'utf8', timeout: 60_000, env: kbEnv(tempDir('kb-home-')),
      });
    } finally {
      closeSync(folder);
    }
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('kb: --answer - could not read stdin: it is a folder, not a file or a pipe; nothing was added\n');
    expect(existsSync(join(root, 'notes/inbox'))).toBe(false);
    expect(existsSync(join(root, '.kb'))).toBe(false);
  });

  it('has --help with an example for a note and for a deck card', () => {
    const help = runKb(['add', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/kb add "[^"]+" --topic/);
    expect(help.stdout).toMatch(/kb add "[^"]+" --deck/);
  });
});
