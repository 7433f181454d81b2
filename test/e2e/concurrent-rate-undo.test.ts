// Issue #13 item 13: several real `kb rate` and `kb undo` processes on one knowledge base at
// once. Each rating and each undo is one IMMEDIATE transaction, so every success stands as a
// log row (or took exactly one back) and every card's state is what a sequential replay of
// its log gives; kb doctor finds nothing to report.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { sameFsrsState, stateFromColumns, type FsrsColumns } from '../../src/model/fsrs-state.ts';
import type { ReviewLogRow } from '../../src/store/review-queries.ts';
import { FsrsScheduler } from '../../src/srs/fsrs.ts';
import type { Grade } from '../../src/model/fsrs-state.ts';
import { kbBin, kbEnv, runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { openDb } from './review-fixture.ts';

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
        // An undo may find the log empty; nothing else may fail.
        if (undo && result.code !== 0) expect(result.stderr).toContain('nothing to undo');
        else expect(result.code, result.stderr).toBe(0);
        if (result.code === 0) stood += undo ? -1 : 1;
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
