// kb sync pulling another device's rating of a card whose note that device also moved (found as a
// user: one clone moved a note to another topic and rated it, the other rated it where it was).
// The replay wrote the merged fields to the path the database had, which the pull had just
// emptied: the write was skipped, kb sync said "review fields already up to date" and pushed the
// note with one device's fields, and kb doctor found it out of step with the merged logs.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb } from '../helpers/kb-cli.ts';
import { git, rate, sync, twoClones } from '../helpers/git-clones.ts';

describe('kb sync pulling a rating of a note moved on the other clone', () => {
  it('writes the merged review fields into the note where it now is, and commits them', () => {
    const { a, b, ids } = twoClones();
    expect(sync(a).code).toBe(0);
    expect(sync(b).code).toBe(0);
    // B moves the note to a topic folder, scans, rates the card there and syncs.
    mkdirSync(join(b, 'notes/topic'));
    git(b, 'mv', 'notes/one.md', 'notes/topic/one.md');
    git(b, 'commit', '--quiet', '-m', 'move one');
    expect(runKb(['--kb', b, 'scan']).code).toBe(0);
    rate(b, ids[0], 'good');
    expect(sync(b).code).toBe(0);
    // A rates the same card where its note still is for A, then syncs: B's move and rating come in.
    rate(a, ids[0], 'again');
    const synced = sync(a);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(/committed the review fields rewritten from the merged logs/);
    const moved = readFileSync(join(a, 'notes/topic/one.md'), 'utf8');
    expect(moved).toMatch(/^review_count: 2$/m);
    const doctor = runKb(['--kb', a, 'doctor']);
    expect(doctor.stdout + doctor.stderr).toMatch(/0 errors, 0 warnings/);
    expect(git(a, 'status', '--porcelain')).toBe('');
    // And B, pulling that, holds the same note.
    expect(sync(b).code).toBe(0);
    expect(readFileSync(join(b, 'notes/topic/one.md'), 'utf8')).toBe(moved);
  });
});
