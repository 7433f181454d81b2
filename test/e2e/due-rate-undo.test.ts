// The scriptable twins of kb review: kb due, kb rate, kb undo; and kb review without a terminal.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kbBin, kbEnv, runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { cardIdOf, openDb, reviewKb } from './review-fixture.ts';

interface DueJson {
  counts: { learning: number; review: number; new: number; later: number };
  cards: Array<{ id: string; queue: string; path: string; front: string }>;
}

describe('kb due / rate / undo', () => {
  it('lists the queue, rates a card, and undoes it back to the same bytes', () => {
    const kb = reviewKb();
    const ttft = cardIdOf(kb.ttftPath);
    const original = readFileSync(kb.ttftPath, 'utf8');

    const due = JSON.parse(runKb(['--kb', kb.root, 'due', '--json']).stdout) as DueJson;
    expect(due.counts).toMatchObject({ learning: 0, review: 0, new: 2 });
    expect(due.cards.map((card) => card.path)).toEqual(['notes/metrics/a-ttft.md', 'notes/metrics/b-tpot.md']);
    const text = runKb(['--kb', kb.root, 'due']);
    expect(text.stdout).toContain('Due now: 0 learning, 0 review, 2 new');
    expect(text.stdout).toContain('What is TPOT?');
    expect(runKb(['--kb', kb.root, 'due', '--limit', '1', '--json']).stdout).not.toContain('TPOT');
    expect(runKb(['--kb', kb.root, 'due', '--tag', 'nope', '--json'])).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('no card has the tag "nope"') });

    const rated = runKb(['--kb', kb.root, 'rate', ttft, 'good', '--json']);
    expect(rated.code).toBe(0);
    expect(JSON.parse(rated.stdout)).toMatchObject({ id: ttft, rating: 'good', state: 'learning', reps: 1, writeback: { status: 'written', path: 'notes/metrics/a-ttft.md' } });
    expect(readFileSync(kb.ttftPath, 'utf8')).toMatch(/review_count: 1\n/);

    const undone = runKb(['--kb', kb.root, 'undo']);
    expect(undone.code).toBe(0);
    expect(undone.stdout).toContain(`undid Good on ${ttft}`);
    expect(readFileSync(kb.ttftPath, 'utf8')).toBe(original);
    const db = openDb(kb.root);
    expect(db.prepare('SELECT count(*) AS n FROM review_log').get()).toEqual({ n: 0 });
    db.close();

    // Nothing left to undo is no error, as "nothing due" is not (it exited 1).
    const nothing = runKb(['--kb', kb.root, 'undo']);
    expect(nothing).toMatchObject({ code: 0, stderr: '', stdout: "Nothing to undo on this device (another device's and imported history stay).\n" });
    const nothingJson = runKb(['--kb', kb.root, 'undo', '--json']);
    expect(nothingJson).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(nothingJson.stdout)).toEqual({ undone: false, message: "Nothing to undo on this device (another device's and imported history stay)." });
  });

  it('kb rate --json and kb undo --json give the card as kb cards --json does: its id, state names, ISO times (they gave cardId, state 1 and epoch milliseconds)', () => {
    const kb = reviewKb();
    const ttft = cardIdOf(kb.ttftPath);
    const listed = () => (JSON.parse(runKb(['--kb', kb.root, 'cards', ttft, '--json']).stdout) as Array<Record<string, unknown>>)[0]!;
    const before = listed();
    const rated = runKb(['--kb', kb.root, 'rate', ttft, 'good', '--json']);
    expect(rated.code, rated.stderr).toBe(0);
    const rate = JSON.parse(rated.stdout) as Record<string, unknown>;
    const after = listed();
    // Every schedule field kb cards gives, with the same value, under the same key.
    const schedule = ['id', 'path', 'state', 'due', 'stability', 'difficulty', 'reps', 'lapses', 'lastReview', 'suspended', 'buried', 'leech'];
    for (const key of schedule) expect(rate[key], key).toEqual(after[key]);
    expect(rate).toMatchObject({ rating: 'good', state: 'learning', reps: 1, leechAction: null, writeback: { status: 'written', path: 'notes/metrics/a-ttft.md' } });
    expect(rate.reviewedAt).toBe(after.lastReview);
    expect(rate.due).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(rate.before).toEqual({ state: 'new', due: null, stability: null, difficulty: null, reps: 0, lapses: 0, lastReview: null });
    expect(rate.event).toMatch(/^[0-9a-f-]{36}$/);
    expect(rate).not.toHaveProperty('cardId');

    const undone = runKb(['--kb', kb.root, 'undo', '--json']);
    expect(undone.code, undone.stderr).toBe(0);
    const undo = JSON.parse(undone.stdout) as Record<string, unknown>;
    const back = listed();
    expect(back).toEqual(before);
    for (const key of schedule) expect(undo[key], key).toEqual(back[key]);
    expect(undo).toMatchObject({ undone: true, action: 'rate', rating: 'good', event: rate.event, state: 'new', writeback: { status: 'restored', path: 'notes/metrics/a-ttft.md' } });
    expect(undo).not.toHaveProperty('cardId');
    expect(undo).not.toHaveProperty('restored');

    // A card action taken back: its flags as kb cards then gives them.
    expect(runKb(['--kb', kb.root, 'suspend', ttft]).code).toBe(0);
    const unsuspended = JSON.parse(runKb(['--kb', kb.root, 'undo', '--json']).stdout) as Record<string, unknown>;
    expect(unsuspended).toMatchObject({ undone: true, action: 'suspend', rating: null, suspended: false, writeback: null });
  });

  it('kb rate and kb undo right after kb.json\'s idKey changed scan first, so the note is written back (its write-back was refused: "the file no longer holds card")', () => {
    const kb = reviewKb();
    const ttft = cardIdOf(kb.ttftPath);
    writeFileSync(join(kb.root, 'kb.json'), '{ "idKey": "kb_id" }\n');
    const rated = runKb(['--kb', kb.root, 'rate', ttft, 'good', '--json']);
    expect(rated.stderr).toBe('');
    expect(JSON.parse(rated.stdout)).toMatchObject({ id: ttft, writeback: { status: 'written' } });
    // The scan wrote the card's id under the new key; the old line stays.
    const rewritten = readFileSync(kb.ttftPath, 'utf8');
    expect(rewritten).toContain(`id: ${ttft}\nkb_id: ${ttft}\n`);
    expect(rewritten).toMatch(/^review_count: 1$/m);
    writeFileSync(join(kb.root, 'kb.json'), '{ "idKey": "card" }\n');
    const undone = runKb(['--kb', kb.root, 'undo']);
    expect(undone.stderr).toBe('');
    // Written back, not restored byte for byte: the scan added the card: line since the rating.
    expect(undone.stdout).toContain('frontmatter updated: notes/metrics/a-ttft.md');
    const note = readFileSync(kb.ttftPath, 'utf8');
    expect(note).toContain(`card: ${ttft}\n`);
    expect(note).toMatch(/^review_count: 0$/m);
  });

  it('kb rate names a note whose path has Chinese and spaces whole on its line, and keeps its unquoted dates unquoted (the path was cut at its spaces, the dates quoted)', () => {
    const path = 'notes/推理 优化/预填 阶段.md';
    const root = writeKb({ [path]: '---\ncreated: 2026-11-01\nlast_reviewed: 2026-11-10\nnext_review: 2026-11-20\nreview_count: 2\n---\n# 预填阶段做什么？\n\n## Answer\n\n计算 prompt 的 KV。\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const id = cardIdOf(join(root, path));
    for (const columns of ['40', '60']) {
      const rated = runKb(['--kb', root, 'rate', id, 'good'], { env: { COLUMNS: columns } });
      expect(rated.code).toBe(0);
      expect(rated.stdout.split('\n').some((line) => line.trim() === path || line === `frontmatter updated: ${path}`), rated.stdout).toBe(true);
    }
    const text = readFileSync(join(root, path), 'utf8');
    expect(text).toMatch(/^created: 2026-11-01\nlast_reviewed: \d{4}-\d{2}-\d{2}\nnext_review: \d{4}-\d{2}-\d{2}\nreview_count: 4\n/m);
    expect(runKb(['--kb', root, 'doctor']).stdout).toMatch(/0 errors, 0 warnings/);
  });

  it('an undo of a rating after the note was edited keeps the edit and writes the review fields back (found as a user: they kept saying the rating stood)', () => {
    const kb = reviewKb();
    const id = cardIdOf(kb.ttftPath);
    expect(runKb(['--kb', kb.root, 'rate', id, 'good']).code).toBe(0);
    expect(readFileSync(kb.ttftPath, 'utf8')).toMatch(/^review_count: 1$/m);
    appendFileSync(kb.ttftPath, '\nA line added in the editor.\n');
    const undo = runKb(['--kb', kb.root, 'undo']);
    expect(undo.code, undo.stderr).toBe(0);
    const after = readFileSync(kb.ttftPath, 'utf8');
    expect(after).toContain('A line added in the editor.');
    expect(after).toMatch(/^review_count: 0$/m);
    expect(runKb(['--kb', kb.root, 'doctor']).stdout).toMatch(/0 errors, 0 warnings/);
  });

  it('a note kb wrote back is not parsed again by the next scan, but a note the user edited is', () => {
    const kb = reviewKb();
    const scanLine = () => runKb(['--kb', kb.root, 'scan']).stdout.split('\n')[0];
    expect(scanLine()).toMatch(/, 0 parsed$/);
    runKb(['--kb', kb.root, 'rate', cardIdOf(kb.ttftPath), 'good']);
    expect(scanLine()).toMatch(/, 0 parsed$/);
    runKb(['--kb', kb.root, 'undo']);
    expect(scanLine()).toMatch(/, 0 parsed$/);

    // Edited after the last scan, then rated: the write-back keeps the edit, and so must the scan.
    appendFileSync(kb.ttftPath, '\nEdited by hand.\n');
    runKb(['--kb', kb.root, 'rate', cardIdOf(kb.ttftPath), 'good']);
    expect(readFileSync(kb.ttftPath, 'utf8')).toMatch(/review_count: 1\n[\s\S]*Edited by hand\.\n$/);
    expect(scanLine()).toMatch(/, 1 parsed$/);
    const db = openDb(kb.root);
    expect((db.prepare("SELECT full FROM cards WHERE path = 'notes/metrics/a-ttft.md'").get() as { full: string }).full).toContain('Edited by hand.');
    db.close();
  });

  it("says why an undo is refused when another device's event replays after it (found as a user: its clock was ahead, nothing said so)", () => {
    const kb = reviewKb();
    const ttft = cardIdOf(kb.ttftPath);
    expect(runKb(['--kb', kb.root, 'suspend', ttft]).code).toBe(0);
    const ahead = Date.now() + 86_400_000;
    mkdirSync(join(kb.root, 'reviews'), { recursive: true });
    appendFileSync(join(kb.root, 'reviews/other-device.jsonl'), `${JSON.stringify({ id: 'other-1', device: 'other-device', n: 0, card: ttft, at: ahead, kind: 'rate', day: '2099-01-01', rating: 3 })}\n`);
    const undo = runKb(['--kb', kb.root, 'undo']);
    expect(undo.code).toBe(1);
    expect(undo.stderr).toMatch(new RegExp(`^kb: card ${ttft} changed after its suspend \\(another device's event of \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d replays after it, a time still to come: that device's clock is ahead\\); nothing was undone\\n$`));
  });

  it('a suspended card rated from the shell says it stays suspended (its due time means nothing until then; found as a user)', () => {
    const kb = reviewKb();
    const ttft = cardIdOf(kb.ttftPath);
    expect(runKb(['--kb', kb.root, 'suspend', ttft]).code).toBe(0);
    const rated = runKb(['--kb', kb.root, 'rate', ttft, 'good']);
    expect(rated.code).toBe(0);
    expect(rated.stdout).toContain(`still suspended: kb review skips it until kb unsuspend ${ttft}`);
  });

  it('refuses a bad rating, an unknown card and a bad --limit with one clear line', () => {
    const kb = reviewKb();
    const bad = runKb(['--kb', kb.root, 'rate', cardIdOf(kb.ttftPath), 'perfect']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('kb: rating: "perfect" is not one of again, hard, good, easy (or 1-4)\n');
    const unknown = runKb(['--kb', kb.root, 'rate', 'no-such-card', 'good']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no card with id no-such-card');
    const limit = runKb(['--kb', kb.root, 'due', '--limit', 'many']);
    expect(limit.stderr).toBe('kb: --limit: "many": give a whole number of cards, 1 or more\n');
  });

  it('kb review without a terminal points to the scriptable commands', () => {
    const kb = reviewKb();
    const review = runKb(['--kb', kb.root, 'review']);
    expect(review.code).toBe(2);
    expect(review.stderr).toContain('needs a terminal');
    for (const command of ['kb due', 'kb rate <card-id> again|hard|good|easy', 'kb undo']) expect(review.stderr).toContain(command);
    // kb quiz says the same of itself; both within 80 columns (quiz's ran to 94, found as a user).
    const quiz = runKb(['--kb', kb.root, 'quiz']);
    expect(quiz).toMatchObject({ code: 2, stderr: expect.stringContaining('use kb quiz --json') });
    for (const stderr of [review.stderr, quiz.stderr]) expect(stderr.split('\n').filter((line) => line.length > 80)).toEqual([]);
  });
});

// scripts/system-deps.sh installs faketime; elsewhere the test is skipped, but never in CI.
const hasFaketime = spawnSync('faketime', ['-f', '+0', 'true']).status === 0;

describe('kb rate with the clock set back', () => {
  it.skipIf(!hasFaketime && !process.env.CI)("stores the rating at the card's last review, keeping its log in order, and warns that the clock looks wrong", () => {
    const kb = reviewKb();
    const id = cardIdOf(kb.ttftPath);
    const home = tempDir('kb-home-');
    expect(runKb(['--kb', kb.root, 'rate', id, 'good'], { env: { HOME: home } }).code).toBe(0);
    // 300 days back (libfaketime under the real kb).
    const back = spawnSync('faketime', ['-f', '-300d', process.execPath, kbBin, '--kb', kb.root, 'rate', id, 'good'], { encoding: 'utf8', env: kbEnv(home) });
    expect(back.status, back.stderr).toBe(0);
    expect(back.stderr).toMatch(/^kb: warning: the clock \(\d{4}-\d\d-\d\d \d\d:\d\d\) is behind this card's last review \(\d{4}-\d\d-\d\d \d\d:\d\d\): the rating is stored at that time, to keep the card's reviews in order; check this machine's clock, or that of the device that reviewed the card\n$/);
    const db = openDb(kb.root);
    const log = db.prepare('SELECT reviewed_at FROM review_log ORDER BY rowid').pluck().all() as number[];
    db.close();
    expect(log).toHaveLength(2);
    expect(log[1]).toBe(log[0]);
    // At the right time again: no word about the clock.
    const again = runKb(['--kb', kb.root, 'rate', id, 'good'], { env: { HOME: home } });
    expect(again).toMatchObject({ code: 0, stderr: '' });
  });

  it('on a knowledge base with no cards says how to add one, not "come back tomorrow" and "run kb scan" (kb due scans itself; found as a user)', () => {
    const root = join(tempDir(), 'kb');
    expect(runKb(['init', '--empty', root]).code).toBe(0);
    const empty = runKb(['--kb', root, 'due']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('No cards yet. Add one: kb add "Question?" --answer "Answer."\n');
    // With a card, none of it due: the usual word, pointing at kb add rather than kb scan.
    expect(runKb(['--kb', root, 'add', 'What is TTFT?', '--answer', 'Time to first token.']).code).toBe(0);
    const id = (JSON.parse(runKb(['--kb', root, 'due', '--json']).stdout) as DueJson).cards[0]!.id;
    expect(runKb(['--kb', root, 'rate', id, 'easy']).code).toBe(0);
    expect(runKb(['--kb', root, 'due']).stdout).toBe('Nothing due. Come back tomorrow (or add cards: kb add).\n');
  });
});
