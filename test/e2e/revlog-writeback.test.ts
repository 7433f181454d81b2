// kb import --revlog rewrites the review fields of every note it replays, as a batch: the notes'
// temp files are made durable by one sync of their file system (not a fsync each), then renamed
// in. A kill in the middle loses nothing the import reported, and kb doctor --fix mends the rest.
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** The nth card's id, in kb's form (a letter, then 11 of base32), so the CSV names it as it is. */
const idOf = (n: number) => `n${Array.from({ length: 11 }, (_, k) => ALPHABET[Math.floor(n / 32 ** (10 - k)) % 32]).join('')}`;

/** Enough notes (in three folders) for the batch to take one sync of the file system (from 256). */
const NOTES = 300;
const pathOf = (n: number) => `notes/t${n % 3}/n${n}.md`;

/** A scanned knowledge base of NOTES notes, a revlog CSV of one review each, and a `sync` on PATH that runs `script` first. */
function setUp(script: string): { root: string; csv: string; env: Record<string, string> } {
  const files: Record<string, string> = { 'kb.json': '{}\n' };
  for (let n = 0; n < NOTES; n++) files[pathOf(n)] = `---\nid: ${idOf(n)}\ncreated: 2024-01-01\n---\n# Question ${n}?\n\n## Answer\n\nAnswer ${n}.\n`;
  const root = writeKb(files);
  expect(runKb(['--kb', root, 'scan']).code).toBe(0);
  const dir = tempDir('kb-revlog-batch-');
  const csv = join(dir, 'history.csv');
  const rows = Array.from({ length: NOTES }, (_, n) => `${idOf(n)},${Date.UTC(2024, 2, 1, 9) + n * 1000},3,0,5000`);
  writeFileSync(csv, `card_id,review_time,review_rating,review_state,review_duration\n${rows.join('\n')}\n`);
  // The seam of the test: kb runs `sync -f` by name; this one logs its arguments, then does `script`.
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const realSync = execFileSync('sh', ['-c', 'command -v sync'], { encoding: 'utf8' }).trim();
  writeFileSync(join(bin, 'sync'), `#!/bin/sh\necho "$@" >> ${join(dir, 'sync.log')}\n${script.replace('REAL_SYNC', realSync)}\n`);
  chmodSync(join(bin, 'sync'), 0o755);
  return { root, csv, env: { PATH: `${bin}:${process.env.PATH}`, SYNC_LOG: join(dir, 'sync.log') } };
}

const tempFiles = (root: string) => [0, 1, 2].flatMap((t) => readdirSync(join(root, `notes/t${t}`)).filter((name) => name.endsWith('.kb-tmp')));
const reviewCount = (root: string, n: number) => /\nreview_count: (\d+)\n/.exec(readFileSync(join(root, pathOf(n)), 'utf8'))?.[1] ?? null;
const syncCalls = (env: Record<string, string>) => {
  try {
    return readFileSync(env.SYNC_LOG, 'utf8').trim().split('\n');
  } catch {
    return [];
  }
};

describe('kb import --revlog writes its notes as a batch', () => {
  it('makes the rewritten notes durable by one sync of their file system, not a fsync each', () => {
    const { root, csv, env } = setUp('exec REAL_SYNC "$@"');
    const imported = runKb(['--kb', root, 'import', '--revlog', csv], { env });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^imported 300 of 300 rows; 0 already in the log\n/);
    // One call, naming one folder: the three folders are on one file system.
    expect(syncCalls(env)).toHaveLength(1);
    expect(syncCalls(env)[0]).toMatch(/^-f \S+\/notes\/t[012]$/);
    for (let n = 0; n < NOTES; n++) expect(reviewCount(root, n)).toBe('1');
    expect(tempFiles(root)).toEqual([]);
    expect(runKb(['--kb', root, 'doctor']).code).toBe(0);
  });

  it('killed between writing the temp files and renaming them in, loses no review: kb doctor --fix writes the fields and removes the temp files', () => {
    // kb is killed (SIGKILL) in its sync: every temp file is written, none renamed in.
    const { root, csv, env } = setUp('kill -9 $PPID');
    const killed = runKb(['--kb', root, 'import', '--revlog', csv], { env });
    expect(killed.code).toBe(-1);
    expect(killed.stdout).toBe('');
    expect(syncCalls(env)).toHaveLength(1);
    // The reviews are in the database and the log; the notes are as they were, whole.
    const cards = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as Array<{ reps: number }>;
    expect(cards.map((card) => card.reps)).toEqual(Array(NOTES).fill(1));
    for (let n = 0; n < NOTES; n++) expect(reviewCount(root, n)).toBe(null);
    expect(tempFiles(root)).toHaveLength(NOTES);

    const fixed = runKb(['--kb', root, 'doctor', '--fix']);
    expect(fixed.stderr).toBe('');
    for (let n = 0; n < NOTES; n++) expect(reviewCount(root, n)).toBe('1');
    expect(tempFiles(root)).toEqual([]);
    const doctor = runKb(['--kb', root, 'doctor']);
    expect(doctor.code, doctor.stdout).toBe(0);
    // The import again adds nothing: every review was kept.
    expect(runKb(['--kb', root, 'import', '--revlog', csv]).stdout).toBe('imported 0 of 300 rows; 300 already in the log\n');
  });
});
