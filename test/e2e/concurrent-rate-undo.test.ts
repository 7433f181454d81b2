// Issue #13 item 13: several real `kb rate` and `kb undo` processes on one knowledge base at
// once. Each rating and each undo is one IMMEDIATE transaction, so every success stands as a
// log row (or took exactly one back) and every card's state is what a sequential replay of
// its log gives; kb doctor finds nothing to report.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { reviewDayLabel } from '../../src/srs/study-day.ts';
import { sameFsrsState, stateFromColumns, type FsrsColumns } from '../../src/model/fsrs-state.ts';
import type { ReviewLogRow } from '../../src/store/review-writes.ts';
import { FsrsScheduler } from '../../src/srs/fsrs.ts';
import type { Grade } from '../../src/model/fsrs-state.ts';
import { kbBin, kbEnv, runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { cardIdOf, openDb, reviewKb } from './review-fixture.ts';

/** kb as a child process that runs alongside others. */
function kbAsync(args: string[], home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [kbBin, ...args], { env: kbEnv(home) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const CARDS = ['one', 'two'].map((name) => `## Card ${name}?\n\nAnswer ${name}.\n`).join('\n');

describe('kb rate and kb undo from several processes at once', () => {
  it('end in the state a sequential replay of the log gives, with one log row per rating that stands', async () => {
    const root = writeKb({ 'cards/deck.md': CARDS });
    const home = tempDir('kb-home-');
    expect(runKb(['--kb', root, 'scan'], { env: { HOME: home } }).code).toBe(0);
    let db = openDb(root);
    const initial = new Map((db.prepare('SELECT card_id, * FROM fsrs').all() as Array<FsrsColumns & { card_id: string }>).map((row) => [row.card_id, row]));
    db.close();
    const ids = [...initial.keys()];

    let stood = 0;
    const grades = ['again', 'hard', 'good', 'easy'];
    for (let round = 0; round < 3; round++) {
      const runs = Array.from({ length: 10 }, (_, i) =>
        i % 3 === 2 ? kbAsync(['--kb', root, 'undo'], home) : kbAsync(['--kb', root, 'rate', ids[i % 2], grades[(i + round) % 4]], home),
      );
      const results = await Promise.all(runs);
      results.forEach((result, i) => {
        const undo = i % 3 === 2;
        // An undo may find the log empty (exit 0, saying so); nothing may fail.
        expect(result.code, result.stderr).toBe(0);
        const nothing = undo && result.stdout.startsWith('Nothing to undo');
        if (!nothing) stood += undo ? -1 : 1;
      });
    }

    db = openDb(root);
    const log = db.prepare('SELECT * FROM review_log ORDER BY rowid').all() as ReviewLogRow[];
    const current = new Map((db.prepare('SELECT card_id, * FROM fsrs').all() as Array<FsrsColumns & { card_id: string }>).map((row) => [row.card_id, row]));
    db.close();
    expect(log.length).toBe(stood);
    const scheduler = new FsrsScheduler(defaultConfig);
    for (const id of ids) {
      let state = stateFromColumns(initial.get(id)!);
      for (const row of log.filter((entry) => entry.card_id === id)) {
        expect(sameFsrsState(stateFromColumns(JSON.parse(row.state_before) as FsrsColumns), state)).toBe(true);
        state = scheduler.rate(id, state, row.rating as Grade, row.reviewed_at);
      }
      expect(sameFsrsState(stateFromColumns(current.get(id)!), state), `card ${id}`).toBe(true);
      expect(current.get(id)!.reps).toBe(log.filter((entry) => entry.card_id === id).length);
    }
    const doctor = runKb(['--kb', root, 'doctor'], { env: { HOME: home } });
    expect(doctor.code, doctor.stdout).toBe(0);
  }, 180_000);
});

/** The note's four review fields as its frontmatter says them. */
function noteFields(path: string): Record<string, string> {
  const text = readFileSync(path, 'utf8');
  return Object.fromEntries(['last_reviewed', 'next_review', 'review_count'].map((key) => [key, new RegExp(`^${key}: '?([^'\\s]*)`, 'm').exec(text)?.[1] ?? '']));
}

interface CardJson {
  id: string;
  reps: number;
  due: string | null;
  lastReview: string | null;
}

describe('a note rated from several processes at once', () => {
  it('ends with the review fields of the card\'s last row, and no warning of an outside edit', async () => {
    const kb = reviewKb();
    const home = tempDir('kb-home-');
    const id = cardIdOf(kb.ttftPath);
    const day = (iso: string | null) => (iso === null ? 'null' : reviewDayLabel(Date.parse(iso), defaultConfig.dayStartsAt));
    // Two kb rate at once, then a kb rate beside a kb undo: each write-back used to land in
    // either order, leaving the first change's fields (a warning blamed "the file changed").
    const rounds = [...Array.from({ length: 12 }, () => ['good', 'good']), ...Array.from({ length: 8 }, () => ['good', 'undo'])];
    for (const [i, round] of rounds.entries()) {
      const results = await Promise.all(round.map((what) => kbAsync(what === 'undo' ? ['--kb', kb.root, 'undo'] : ['--kb', kb.root, 'rate', id, what], home)));
      for (const result of results) {
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr, `round ${i}`).toBe('');
      }
      const cards = JSON.parse(runKb(['--kb', kb.root, 'cards', '--json'], { env: { HOME: home } }).stdout) as CardJson[];
      const card = cards.find((c) => c.id === id)!;
      expect(noteFields(kb.ttftPath), `round ${i}`).toEqual({ last_reviewed: day(card.lastReview), next_review: day(card.due), review_count: String(card.reps) });
    }
    // The mastery level too: kb doctor compares all four fields with the database.
    const doctor = runKb(['--kb', kb.root, 'doctor'], { env: { HOME: home } });
    expect(doctor.stdout).toMatch(/0 errors, 0 warnings/);
  }, 180_000);
});
