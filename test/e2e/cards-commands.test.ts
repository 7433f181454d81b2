// kb cards (Anki's browser), kb suspend | unsuspend | unbury | forget, kb undo of each,
// leeches through kb rate, kb stats and kb cards --state leech, and kb doctor's replay check.
import Database from 'better-sqlite3';
import stringWidth from 'string-width';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';
import type { CardEntry } from '../../src/ui/text/card-table.ts';

const CARDS = `---
tags: [metrics]
---
## What is TTFT?

Time to the first token.

## What is TPOT?

Time per output token.

## What is goodput?

Requests per second that meet every SLO.
`;

/** kb cards --json: the listing's entry, with the card's tags. */
type CardJson = CardEntry & { tags: string[] };

function setup() {
  const root = writeKb({ 'cards/metrics.md': CARDS, 'cards/other.md': '## Unrelated question?\n\nIts answer.\n' });
  const home = tempDir('kb-home-');
  const kb = (...args: string[]) => runKb(['--kb', root, ...args], { env: { HOME: home } });
  /** kb at a terminal width ($COLUMNS, as when piped). */
  const kbAt = (columns: number, ...args: string[]) => runKb(['--kb', root, ...args], { env: { HOME: home, COLUMNS: String(columns) } });
  expect(kb('scan').code).toBe(0);
  const cards = (...args: string[]) => JSON.parse(kb('cards', '--json', ...args).stdout) as CardJson[];
  const write = (sql: string, ...params: unknown[]) => {
    const db = new Database(join(root, '.kb/kb.db'));
    db.prepare(sql).run(...params);
    db.close();
  };
  return { root, kb, kbAt, cards, write };
}

describe('kb cards and the card commands', () => {
  it('lists cards with their schedule, filtered by words, state, deck and tag; --json has reps, lapses, state and due', () => {
    const { kb, kbAt, cards } = setup();
    const all = cards();
    expect(all.map((card) => card.question)).toEqual(['What is TTFT?', 'What is TPOT?', 'What is goodput?', 'Unrelated question?']);
    expect(all[0]).toMatchObject({ deck: 'metrics', tags: ['metrics'], state: 'new', reps: 0, lapses: 0, suspended: false, buried: false, leech: false });
    // A new card has no due date (its row's was when this clone first scanned it: two clones differed).
    expect(all[0].due).toBeNull();
    expect(cards('tpot').map((card) => card.question)).toEqual(['What is TPOT?']);
    expect(cards('first', 'token').map((card) => card.question)).toEqual(['What is TTFT?']);
    expect(cards(all[2].id).map((card) => card.id)).toEqual([all[2].id]);
    // Several ids list each of them (found as a user: the words were ANDed, "No cards match").
    expect(cards(all[2].id, all[0].id).map((card) => card.id).sort()).toEqual([all[0].id, all[2].id].sort());
    expect(cards('--deck', 'other').map((card) => card.question)).toEqual(['Unrelated question?']);
    expect(cards('--tag', 'metrics')).toHaveLength(3);
    expect(kb('rate', all[0].id, 'good').code).toBe(0);
    // Status lines fit the terminal: undoing a learning card's suspend names its due date.
    expect(kb('suspend', all[0].id).code).toBe(0);
    const back = kbAt(60, 'undo');
    expect(back.stdout.replace(/\n\s+/g, ' ')).toMatch(/^undid suspend on \w+: unsuspended \(learning, due in .+\)\)\n$/);
    for (const line of back.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(60);
    expect(cards('--state', 'learning').map((card) => [card.id, card.reps])).toEqual([[all[0].id, 1]]);
    expect(cards('--state', 'new')).toHaveLength(3);
    // Every column at 100 columns; piped without $COLUMNS the table fits 80 (fewer columns).
    const text = kbAt(100, 'cards', '--state', 'learning');
    for (const line of kb('cards').stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(text.stdout).toMatch(/^id\s+state\s+due\s+stab\s+diff\s+reps\s+lapses\s+deck\s+question$/m);
    expect(text.stdout).toContain('What is TTFT?');
    expect(text.stdout).toContain('1 card\n');
    const bad = kb('cards', '--state', 'sleeping');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("option '--state <state>' argument 'sleeping' is invalid");
  });

  it('suspend keeps a card out of review until unsuspend, and kb undo takes a suspension back', () => {
    const { kb, cards } = setup();
    const [ttft, tpot] = cards();
    expect(kb('suspend', ttft.id, tpot.id).stdout).toBe(`${ttft.id}: suspended\n${tpot.id}: suspended\n`);
    expect(cards('--state', 'suspended').map((card) => card.id)).toEqual([ttft.id, tpot.id]);
    expect(kb('due', '--json').stdout).not.toContain(ttft.id);
    expect(kb('suspend', ttft.id).stdout).toBe(`${ttft.id}: unchanged (already suspended)\n`);

    const undone = kb('undo');
    expect(undone.code).toBe(0);
    expect(undone.stdout).toContain(`undid suspend on ${tpot.id}`);
    expect(cards('--state', 'suspended').map((card) => card.id)).toEqual([ttft.id]);
    expect(kb('unsuspend', ttft.id).code).toBe(0);
    expect(cards('--state', 'suspended')).toEqual([]);
    expect(kb('due', '--json').stdout).toContain(ttft.id);
    expect(kb('undo').stdout).toBe(`undid unsuspend on ${ttft.id}: suspended again (new)\n`);
    expect(cards('--state', 'suspended').map((card) => card.id)).toEqual([ttft.id]);
  });

  it('an unknown id changes nothing and names the id', () => {
    const { kb, cards } = setup();
    const [ttft] = cards();
    const refused = kb('suspend', ttft.id, 'no-such-card');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('kb: suspend: no card with id no-such-card (kb cards lists ids); nothing was changed\n');
    expect(cards('--state', 'suspended')).toEqual([]);
  });

  it('unbury brings back a buried card today; forget makes a card new again (counts kept unless --reset-counts)', () => {
    const { kb, cards, write } = setup();
    const [ttft, tpot] = cards();
    write('UPDATE fsrs SET buried_until = ? WHERE card_id = ?', Date.now() + 3_600_000, tpot.id);
    expect(cards('--state', 'buried').map((card) => card.id)).toEqual([tpot.id]);
    expect(kb('due', '--json').stdout).not.toContain(tpot.id);
    expect(kb('unbury', tpot.id).stdout).toBe(`${tpot.id}: unburied\n`);
    expect(kb('due', '--json').stdout).toContain(tpot.id);

    kb('rate', ttft.id, 'easy');
    expect(cards(ttft.id)[0]).toMatchObject({ state: 'review', reps: 1 });
    expect(kb('forget', ttft.id).stdout).toBe(`${ttft.id}: forgotten (new again)\n`);
    expect(cards(ttft.id)[0]).toMatchObject({ state: 'new', reps: 1, stability: null, difficulty: null });
    kb('forget', '--reset-counts', ttft.id);
    expect(cards(ttft.id)[0]).toMatchObject({ state: 'new', reps: 0, lapses: 0 });
    expect(kb('undo').stdout).toContain(`undid forget on ${ttft.id}`);
    expect(kb('undo').stdout).toContain(`undid forget on ${ttft.id}`);
    expect(cards(ttft.id)[0]).toMatchObject({ state: 'review', reps: 1 });
    expect(kb('undo').stdout).toContain(`undid Easy on ${ttft.id}`);
    // Buried again, said so (found as a user: "back to learning, due now" read as due).
    // Its state alone: it is out of the queue ("(new, due now)" said it was due).
    expect(kb('undo').stdout).toContain(`undid unbury on ${tpot.id}: buried again until tomorrow (new)\n`);
    expect(cards('--state', 'buried').map((card) => card.id)).toEqual([tpot.id]);
  });

  it('a lapse that reaches leechThreshold flags a leech: kb rate says so, kb cards --state leech and kb stats show it', () => {
    const { root, kb, cards, write } = setup();
    const [ttft] = cards();
    kb('rate', ttft.id, 'easy');
    // Seven lapses already: the eighth makes it a leech (kb.json's default threshold).
    write('UPDATE fsrs SET lapses = 7, due = ? WHERE card_id = ?', Date.now() - 1000, ttft.id);
    write(`UPDATE review_log SET state_after = json_set(state_after, '$.lapses', 7) WHERE card_id = ?`, ttft.id);
    const rated = kb('rate', ttft.id, 'again', '--json');
    expect(rated.code).toBe(0);
    expect(JSON.parse(rated.stdout)).toMatchObject({ leechAction: 'tag', leech: true, lapses: 8 });
    expect(cards('--state', 'leech').map((card) => [card.id, card.lapses, card.suspended])).toEqual([[ttft.id, 8, false]]);
    expect(JSON.parse(kb('stats', '--json').stdout).leeches).toBe(1);
    expect(kb('stats').stdout).toMatch(/Cards by state \(\d+ in all; 1 leech among them\)/);
    expect(kb('undo').code).toBe(0);
    expect(cards('--state', 'leech')).toEqual([]);
    void root;
  });

  it('leechAction suspend suspends the leech', () => {
    const root = writeKb({ 'cards/metrics.md': CARDS, 'kb.json': JSON.stringify({ leechThreshold: 1, leechAction: 'suspend' }) });
    const home = tempDir('kb-home-');
    const kb = (...args: string[]) => runKb(['--kb', root, ...args], { env: { HOME: home } });
    kb('scan');
    const [ttft] = JSON.parse(kb('cards', '--json').stdout) as CardJson[];
    kb('rate', ttft.id, 'easy');
    // Due again now, in the row and in the log alike (the log must still replay).
    const due = Date.now() - 1000;
    const db = new Database(join(root, '.kb/kb.db'));
    db.prepare('UPDATE fsrs SET due = ? WHERE card_id = ?').run(due, ttft.id);
    db.prepare(`UPDATE review_log SET state_after = json_set(state_after, '$.due', ?) WHERE card_id = ?`).run(due, ttft.id);
    db.close();
    expect(JSON.parse(kb('rate', ttft.id, 'again', '--json').stdout)).toMatchObject({ leechAction: 'suspend', leech: true, suspended: true });
    const [card] = JSON.parse(kb('cards', '--state', 'leech', '--json').stdout) as CardJson[];
    expect(card).toMatchObject({ id: ttft.id, suspended: true, leech: true, lapses: 1 });
    const doctor = kb('doctor');
    expect(doctor.code, doctor.stdout).toBe(0);
  });

  it('kb cards --state suspended at 80 columns: every column gives way a little, the deck no longer cut to "pr…" (found by hand)', () => {
    const root = writeKb({
      'cards/prefill-decode.md': '## What does the prefill phase do?\n\nIt processes the prompt.\n\n## 连续批处理为什么能提高吞吐，又为什么能降低首个令牌延迟？\n\n空出的槽位立刻补上。\n',
      'cards/推理优化技巧.md': '## Why is decode memory-bound while prefill is compute-bound?\n\nArithmetic intensity.\n',
    });
    const home = tempDir('kb-home-');
    const kbAt = (columns: number, ...args: string[]) => runKb(['--kb', root, ...args], { env: { HOME: home, COLUMNS: String(columns) } });
    const ids = (JSON.parse(kbAt(80, 'cards', '--json').stdout) as CardJson[]).map((card) => card.id);
    for (const id of ids) {
      expect(kbAt(80, 'rate', id, 'good').code).toBe(0);
      expect(kbAt(80, 'suspend', id).code).toBe(0);
    }
    const narrow = kbAt(80, 'cards', '--state', 'suspended').stdout.trimEnd().split('\n');
    for (const line of narrow) expect(stringWidth(line), line).toBeLessThan(80);
    // The state whole, the deck's first cells (it had 4: "pr…"), and the question's first 20 cells and more.
    expect(narrow[1]).toMatch(/^\w{12} {2}learning suspended {2}\d{4}-\d\d-\d\d {2}prefill… {2}What does the prefill/);
    expect(narrow[2]).toMatch(/ {2}prefill… {2}连续批处理为什么能提高/);
    expect(narrow[3]).toMatch(/ {2}推理优… {3}Why is decode memory/);
    // At 200 columns nothing is cut.
    const wide = kbAt(200, 'cards', '--state', 'suspended').stdout;
    expect(wide.split('\n')[0].split(/\s+/)).toEqual(['id', 'state', 'due', 'stab', 'diff', 'reps', 'lapses', 'deck', 'question']);
    for (const text of ['learning suspended', 'prefill-decode', '推理优化技巧', '连续批处理为什么能提高吞吐，又为什么能降低首个令牌延迟？', 'Why is decode memory-bound while prefill is compute-bound?']) expect(wide).toContain(text);
  });

  it('kb doctor reports a card whose schedule does not replay from its log', () => {
    const { kb, cards, write } = setup();
    const [ttft] = cards();
    kb('rate', ttft.id, 'good');
    kb('rate', ttft.id, 'good');
    expect(kb('doctor').code).toBe(0);
    // The second rating lost, as two kb rate at once could lose it: two log rows, one change.
    write('UPDATE fsrs SET reps = 1, due = due + 86400000, stability = stability + 0.123456789 WHERE card_id = ?', ttft.id);
    const doctor = kb('doctor');
    expect(doctor.code).toBe(1);
    // Readable (times to the minute, no long decimals), with what to do, and wrapped to 80 columns when piped (lines ran to 400).
    const flat = doctor.stdout.replace(/\n +/g, ' ');
    expect(flat).toMatch(new RegExp(`^error: card ${ttft.id}: its schedule \\(reps 1, due \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d, stability \\d+\\.\\d\\d?\\) is not what its log leaves \\(reps 2, due \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d, stability \\d+\\.\\d\\d?\\)$`, 'm'));
    expect(flat).not.toMatch(/\d\.\d{3}|T\d\d:\d\d/);
    expect(doctor.stdout.replace(/\s+/g, ' ')).toMatch(/ the review logs hold every rating and change: to rebuild this card's schedule from them, move the database aside \(mv (\S+) \1\.old\) and run any kb command /);
    expect(doctor.stdout.split('\n').every((line) => line.length <= 79)).toBe(true);
    expect(doctor.stdout.split('\n').filter((line) => line.startsWith('error: ')).length).toBe(1);
    expect(JSON.parse(kb('doctor', '--json').stdout).replay).toHaveLength(1);
  });
});

describe('kb cards and a calc card', () => {
  it('shows the question with the values kb due and kb review ask today, not its {placeholders} (found as a user)', () => {
    const calc = '## A request waits {wait} ms and prefills in {prefill} ms. TTFT?\n\n```kb-calc\nvars:\n  wait: { min: 100, max: 200, step: 10 }\n  prefill: { min: 10, max: 50, step: 5 }\nanswer: wait + prefill\nunit: ms\n```\n';
    const root = writeKb({ 'kb.json': '{}\n', 'cards/calc.md': calc });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const [listed] = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as CardJson[];
    const [due] = (JSON.parse(runKb(['--kb', root, 'due', '--json']).stdout) as { cards: Array<{ front: string }> }).cards;
    expect(listed!.question).toMatch(/^A request waits \d+ ms and prefills in \d+ ms\. TTFT\?$/);
    expect(listed!.question).toBe(due!.front);
  });
});
