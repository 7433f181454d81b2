// Issue #13 items 14 and 15: what kb says when a write cannot happen. A rating whose note
// cannot be written back is stored all the same (exit 0, one warning line); a fault of the
// machine (a locked database, a full or read-only disk) is one line naming the file and what
// to do, never a stack trace, also from inside kb review. Faults are real: a YAML anchor, a
// read-only bind mount and a full tmpfs in a private mount namespace, a lock held by the test.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kbBin, repoRoot, runKb, tempDir, terminalCommand, writeKb } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';
import { cardIdOf, openDb, reviewKb } from './review-fixture.ts';

const ANCHORED = `---
created: '2025-10-19'
next_review: '2025-10-19'
review_count: &rc 0
other: *rc
---
# Anchored?

## Answer

Yes.
`;

function ratings(root: string): number {
  const db = openDb(root);
  try {
    return (db.prepare('SELECT count(*) AS n FROM review_log').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** A wide terminal: each of kb doctor's findings on one line, read whole (piped, it wraps at 80 columns). */
const WIDE = { env: { COLUMNS: '1000' } };

/** One line on stderr, no stack frames, no bundle source. */
function expectOneLine(stderr: string): void {
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr.length).toBeLessThan(400);
}

/**
 * Runs kb with the knowledge base's folder behind a mount made in a private mount
 * namespace (`unshare -rm`: nothing outside the test sees it). `setup` is shell run before kb.
 */
function kbUnderMount(root: string, dbPath: string, args: string[], setup: string, env: Record<string, string> = {}, { terminal = false } = {}) {
  const home = tempDir('kb-home-');
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const argv = [process.execPath, kbBin, '--kb', root, ...args];
  // On a terminal (kb add --edit needs one): kb's stdin and stdout a pseudo-terminal, its stderr a file.
  const stderrFile = join(tempDir('kb-stderr-'), 'stderr');
  const script = `${setup} && exec ${(terminal ? ['script', ...terminalCommand(argv, stderrFile)] : argv).map(quote).join(' ')}`;
  const result = spawnSync('unshare', ['-rm', 'sh', '-c', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: join(home, 'data'), KB_DB: dbPath, NO_COLOR: '1', TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json'), ...env },
  });
  if (terminal) return { code: result.status, stdout: result.stdout.replaceAll('\r\n', '\n'), stderr: readFileSync(stderrFile, 'utf8') };
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('write-back that cannot happen: the rating is stored, exit 0, one warning', () => {
  it('a frontmatter broken after the scan says what is wrong with it, not that the card moved (found as a user)', () => {
    const root = writeKb({ 'notes/a.md': '---\nid: aaaaaaaaaaaa\ntags: [t]\n---\n# What is TTFT?\n\n## Answer\n\nTime to first token.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const abs = join(root, 'notes/a.md');
    writeFileSync(abs, readFileSync(abs, 'utf8').replace('tags: [t]', 'tags: [t, unclosed'));
    const rated = runKb(['--kb', root, 'rate', 'aaaaaaaaaaaa', 'good']);
    expect(rated.code).toBe(0);
    expect(rated.stderr).toMatch(/^kb: warning: frontmatter not written: notes\/a\.md:3: frontmatter: .*; the rating is stored \(once the file is fixed, kb doctor --fix writes the fields\)\n$/);
    expect(rated.stderr).not.toContain('no longer holds');
  });

  it('a note moved since the last scan gets the fields from the next command that scans, and an undo\'s too (found by a probe: kb sync pushed it with the fields it had)', () => {
    const root = writeKb({ 'notes/a.md': '---\nid: aaaaaaaaaaaa\n---\n# What is TTFT?\n\n## Answer\n\nTime to first token.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    mkdirSync(join(root, 'notes/metrics'));
    renameSync(join(root, 'notes/a.md'), join(root, 'notes/metrics/a.md'));
    const rated = runKb(['--kb', root, 'rate', 'aaaaaaaaaaaa', 'good']);
    expect(rated.code).toBe(0);
    expect(rated.stderr).toMatch(/^kb: warning: frontmatter not written: notes\/a\.md: moved or deleted since kb read it \(ENOENT\); the rating is stored \(the next kb command that scans writes the fields where the note went\)\n$/);
    expect(readFileSync(join(root, 'notes/metrics/a.md'), 'utf8')).not.toMatch(/review_count/);
    expect(runKb(['--kb', root, 'due']).code).toBe(0);
    expect(readFileSync(join(root, 'notes/metrics/a.md'), 'utf8')).toMatch(/^review_count: 1$/m);
    expect(runKb(['--kb', root, 'doctor']).stdout).toMatch(/0 errors, 0 warnings/);
    // Moved back before the undo: the undo's fields follow it there the same way.
    renameSync(join(root, 'notes/metrics/a.md'), join(root, 'notes/a.md'));
    const undone = runKb(['--kb', root, 'undo']);
    expect(undone.code).toBe(0);
    expect(undone.stderr).toMatch(/the undo is stored \(the next kb command that scans writes the fields where the note went\)/);
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    expect(readFileSync(join(root, 'notes/a.md'), 'utf8')).toMatch(/^review_count: 0$/m);
    expect(runKb(['--kb', root, 'doctor']).stdout).toMatch(/0 errors, 0 warnings/);
  });

  it('a card whose note was deleted is not rated (found as a user: it was, silently)', () => {
    const root = writeKb({ 'notes/a.md': '---\nid: aaaaaaaaaaaa\n---\n# What is TTFT?\n\n## Answer\n\nTime to first token.\n', 'notes/b.md': '# Other?\n\n## Answer\n\nB.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    rmSync(join(root, 'notes/a.md'));
    expect(runKb(['--kb', root, 'scan']).stdout).toMatch(/1 orphan/);
    const rated = runKb(['--kb', root, 'rate', 'aaaaaaaaaaaa', 'good']);
    expect(rated.code).toBe(1);
    expect(rated.stderr).toBe('kb: card aaaaaaaaaaaa: its file notes/a.md is gone (kb scan keeps its history in case it comes back); not rated\n');
    expect(ratings(root)).toBe(0);
  });

  it('a note made read-only is left as it is (the rename would have replaced it, as root too)', () => {
    const root = writeKb({ 'notes/a.md': '---\nid: aaaaaaaaaaaa\n---\n# What is TTFT?\n\n## Answer\n\nTime to first token.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const abs = join(root, 'notes/a.md');
    const before = readFileSync(abs, 'utf8');
    chmodSync(abs, 0o444);
    const rated = runKb(['--kb', root, 'rate', 'aaaaaaaaaaaa', 'good']);
    expect(rated.code).toBe(0);
    expect(rated.stderr).toBe('kb: warning: frontmatter not written: notes/a.md: the file is read-only (no write permission); the rating is stored (once the file is fixed, kb doctor --fix writes the fields)\n');
    expect(readFileSync(abs, 'utf8')).toBe(before);
    expect(statSync(abs).mode & 0o777).toBe(0o444);
    // kb doctor --fix leaves it alone too, and says why (it rewrote it, found as a user).
    const doctor = runKb(['--kb', root, 'doctor', '--fix'], WIDE);
    expect(doctor.stdout).toContain('the file is read-only (no write permission)');
    expect(readFileSync(abs, 'utf8')).toBe(before);
    // Once its owner makes it writable again, --fix writes the fields.
    chmodSync(abs, 0o644);
    expect(runKb(['--kb', root, 'doctor', '--fix']).code).toBe(0);
    expect(readFileSync(abs, 'utf8')).toContain('review_count: 1');
    // kb undo on a read-only note warns on stderr as kb rate does (it was a plain stdout line).
    chmodSync(abs, 0o444);
    const undone = runKb(['--kb', root, 'undo']);
    expect(undone.code).toBe(0);
    expect(undone.stdout).toMatch(/^undid Good on aaaaaaaaaaaa: /);
    expect(undone.stderr).toBe('kb: warning: frontmatter not written: notes/a.md: the file is read-only (no write permission); the undo is stored (once the file is fixed, kb doctor --fix writes the fields)\n');
  });

  it('a note kb could not write an id into keeps the id it has when kb writes one later: its ratings stay with it (they were left on an orphan)', () => {
    const text = '---\ncreated: 2026-11-01\n---\n# What is ITL?\n\n## Answer\n\nInter-token latency.\n';
    const root = writeKb({ 'notes/ro.md': text, 'store/linked.md': text.replace('ITL', 'TPOT') });
    const ro = join(root, 'notes/ro.md');
    const linked = join(root, 'notes/linked.md');
    // Made read-only before its first scan (left alone, as write-back leaves it), and a note
    // reached through a symbolic link (kb never writes through one).
    chmodSync(ro, 0o444);
    symlinkSync('../store/linked.md', linked);
    const home = { env: { HOME: tempDir('kb-home-') } };
    const first = runKb(['--kb', root, 'scan', '--json'], home);
    expect(first.code, first.stderr).toBe(0);
    expect((JSON.parse(first.stdout) as { warnings: Array<{ file: string; message: string }> }).warnings).toEqual([
      expect.objectContaining({ file: 'notes/linked.md', message: expect.stringMatching(/^card ids not written: .*symbolic link/) }),
      expect.objectContaining({ file: 'notes/ro.md', message: 'card ids not written: the file is read-only (no write permission)' }),
    ]);
    expect(readFileSync(ro, 'utf8')).toBe(text);
    const cards = () => JSON.parse(runKb(['--kb', root, 'cards', '--json'], home).stdout) as Array<{ id: string; path: string; reps: number }>;
    const ids = Object.fromEntries(cards().map((card) => [card.path, card.id]));
    for (const path of ['notes/ro.md', 'notes/linked.md']) {
      expect(runKb(['--kb', root, 'rate', ids[path], 'good'], home).code).toBe(0);
      expect(runKb(['--kb', root, 'rate', ids[path], 'good'], home).code).toBe(0);
    }
    // Writable again (a chmod changes neither size nor mtime), the link replaced by its file and
    // edited: the scan writes the ids the cards already have, not new ones.
    chmodSync(ro, 0o644);
    rmSync(linked);
    renameSync(join(root, 'store/linked.md'), linked);
    appendFileSync(linked, '\nEdited.\n');
    const second = runKb(['--kb', root, 'scan'], home);
    expect(second.stdout).toMatch(/ids written: 2 in 2 files/);
    expect(second.stdout).toMatch(/0 errors, 0 warnings/);
    expect(cardIdOf(ro)).toBe(ids['notes/ro.md']);
    expect(cardIdOf(linked)).toBe(ids['notes/linked.md']);
    expect(cards().filter((card) => card.path.startsWith('notes/')).map((card) => [card.path, card.id, card.reps]).sort()).toEqual([
      ['notes/linked.md', ids['notes/linked.md'], 2],
      ['notes/ro.md', ids['notes/ro.md'], 2],
    ]);
    const doctor = runKb(['--kb', root, 'doctor', '--fix'], home);
    expect(doctor.stdout).not.toMatch(/orphan/);
    expect(readFileSync(ro, 'utf8')).toMatch(/^review_count: 2$/m);
  });

  it('a YAML anchor on a review field (item 14)', () => {
    const root = writeKb({ 'notes/anchored.md': ANCHORED });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const abs = join(root, 'notes/anchored.md');
    const before = readFileSync(abs, 'utf8');
    const rated = runKb(['--kb', root, 'rate', cardIdOf(abs), 'good']);
    expect(rated.code).toBe(0);
    expect(rated.stderr).toBe(
      // Not "kb doctor --fix writes the fields later": it cannot while the anchor is there (found as a user).
      'kb: warning: frontmatter not written: notes/anchored.md: review_count carries the YAML anchor &rc, which kb does not rewrite (other keys may refer to it); not edited; the rating is stored (once the file is fixed, kb doctor --fix writes the fields)\n',
    );
    expect(rated.stdout).toMatch(/: good -> learning/);
    expect(ratings(root)).toBe(1);
    expect(readFileSync(abs, 'utf8')).toBe(before);
    // kb doctor names the same reason instead of crashing.
    const doctor = runKb(['--kb', root, 'doctor', '--fix'], WIDE);
    expect(doctor.stderr).not.toMatch(/^\s+at /m);
    expect(doctor.stdout).toContain('not fixed: review_count carries the YAML anchor &rc');
    // What --fix could not do waits on the file: doctor says so instead of "run kb doctor --fix" again.
    expect(doctor.stdout).not.toContain('run kb doctor --fix to rewrite');
    expect(doctor.stdout).toContain('fix the files named "not fixed" above, then run kb doctor --fix again\n0 errors, 1 warning');
    writeFileSync(abs, before.replace('&rc ', '').replace('*rc', '0'));
    const fixed = runKb(['--kb', root, 'doctor', '--fix'], WIDE);
    expect(fixed.stdout).toMatch(/^fixed: notes\/anchored\.md: /m);
    expect(readFileSync(abs, 'utf8')).toContain('review_count: 1');
  });

  it('a read-only file system (EROFS) and a full one (ENOSPC) (item 15)', () => {
    for (const [fault, setup, says] of [
      ['EROFS', (dir: string) => `mount --bind ${dir} ${dir} && mount -o remount,ro,bind ${dir}`, 'the file system is read-only'],
      ['ENOSPC', (dir: string) => `cp -a ${dir}/. /tmp/kb-copy-$$ 2>/dev/null; mkdir -p /tmp/kb-copy-$$ && cp -a ${dir}/. /tmp/kb-copy-$$ && mount -t tmpfs -o size=64k tmpfs ${dir} && cp -a /tmp/kb-copy-$$/. ${dir} && rm -rf /tmp/kb-copy-$$ && (dd if=/dev/zero of=${dir}/filler bs=1k 2>/dev/null; true)`, 'no space left on the device'],
    ] as const) {
      const kb = reviewKb();
      const dbPath = join(kb.root, '.kb/kb.db');
      const before = readFileSync(kb.ttftPath, 'utf8');
      const rated = kbUnderMount(kb.root, dbPath, ['rate', cardIdOf(kb.ttftPath), 'good'], setup(join(kb.root, 'notes/metrics')));
      expect(rated.code, `${fault}: ${rated.stderr}`).toBe(0);
      expectOneLine(rated.stderr);
      expect(rated.stderr).toMatch(new RegExp(`^kb: warning: frontmatter not written: notes/metrics/a-ttft\\.md: ${says}.*\\(${fault} on \\w+\\); the rating is stored \\(kb doctor --fix writes the fields later\\)\\n$`));
      expect(ratings(kb.root)).toBe(1);
      expect(readFileSync(kb.ttftPath, 'utf8')).toBe(before);
      // kb doctor --fix on the same disk says why it could not fix the note.
      const stillFaulty = kbUnderMount(kb.root, dbPath, ['doctor', '--fix'], setup(join(kb.root, 'notes/metrics')), WIDE.env);
      expect(stillFaulty.stdout).toMatch(new RegExp(`warning: notes/metrics/a-ttft\\.md: .* \\(not fixed: ${says}.*\\(${fault} on \\w+\\)\\)`));
      // Once the disk is back, kb doctor --fix writes the fields.
      const fixed = runKb(['--kb', kb.root, 'doctor', '--fix'], WIDE);
      expect(fixed.stdout).toMatch(/fixed: notes\/metrics\/a-ttft\.md/);
      expect(readFileSync(kb.ttftPath, 'utf8')).toMatch(/review_count: 1\n/);
    }
  });
});

describe('faults of the machine: one line naming the file and what to do, no stack trace', () => {
  let tmux: TmuxKb | null = null;
  afterEach(() => {
    tmux?.stop();
    tmux = null;
  });

  it('a HOME kb cannot write, on the bundled knowledge base: says where else the database can go (found by a probe)', () => {
    const home = tempDir('kb-home-');
    const script = `mount --bind ${home} ${home} && mount -o remount,ro,bind ${home} && exec '${process.execPath}' '${kbBin}' due`;
    const result = spawnSync('unshare', ['-rm', 'sh', '-c', script], {
      encoding: 'utf8',
      cwd: tempDir('kb-cwd-'),
      env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', COLUMNS: '1000', TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json') },
    });
    expect(result.status).toBe(1);
    expect(result.stderr.startsWith(`kb: ${home}/.local: the file system is read-only; `)).toBe(true);
    expect(result.stderr.endsWith(`(EROFS on mkdir); or give the database another place with KB_DB=FILE (by default it is ${home}/.local/share/kb/bundled.db)\n`)).toBe(true);
    expect(result.stderr.split('\n')).toHaveLength(2);
  });

  it('a database another process keeps locked past the busy timeout (SQLITE_BUSY), and KB_DEBUG=1 for the trace', () => {
    const kb = reviewKb();
    const dbPath = join(kb.root, '.kb/kb.db');
    const holder = new Database(dbPath);
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const rated = runKb(['--kb', kb.root, 'rate', cardIdOf(kb.ttftPath), 'good']);
      expect(rated.code).toBe(1);
      expectOneLine(rated.stderr);
      expect(rated.stderr).toBe(
        `kb: database ${dbPath}: another process kept it locked past the 5 s kb waits (another kb, or a tool holding it open); close that and run the command again (SQLITE_BUSY)\n`,
      );
      const debug = runKb(['--kb', kb.root, 'rate', cardIdOf(kb.ttftPath), 'good'], { env: { KB_DEBUG: '1' } });
      expect(debug.code).toBe(1);
      expect(debug.stderr.split('\n')[0]).toContain('(SQLITE_BUSY)');
      expect(debug.stderr).toMatch(/^\s+at /m);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(ratings(kb.root)).toBe(0);
  }, 60_000);

  it('a full disk under the review log: the rating is not stored, and the line names the log file (found as a user)', () => {
    const kb = reviewKb();
    const dbPath = join(kb.root, '.kb/kb.db');
    const reviews = join(kb.root, 'reviews');
    mkdirSync(reviews, { recursive: true });
    const rated = kbUnderMount(kb.root, dbPath, ['rate', cardIdOf(kb.ttftPath), 'good'], `mount -t tmpfs -o size=64k tmpfs ${reviews} && (dd if=/dev/zero of=${reviews}/.filler bs=1k 2>/dev/null; true)`);
    expect(rated.code).toBe(1);
    expectOneLine(rated.stderr);
    expect(rated.stderr).toMatch(new RegExp(`^kb: ${reviews}/[\\w-]+\\.jsonl: no space left on the device; free some space and run the command again \\(ENOSPC on write\\)\\n$`));
    expect(ratings(kb.root)).toBe(0);
  });

  it('a lab run whose result the database cannot store (a full disk under it): the database\'s line, not "lab failed: database or disk is full (stored as failed)" (found as a user)', () => {
    const kb = reviewKb();
    const dbPath = join(kb.root, '.kb/kb.db');
    const state = join(kb.root, '.kb');
    // The run's first row fits and its report does not, for some room left between these; which
    // ones depends on the report's size, so each is tried and one must meet the fault.
    const outcomes = [40, 56, 72, 88, 104].map((freeKb) => {
      const full = `mkdir -p /tmp/kb-db-$$ && cp -a ${state}/. /tmp/kb-db-$$ && mount -t tmpfs -o size=1m tmpfs ${state} && cp -a /tmp/kb-db-$$/. ${state} && rm -rf /tmp/kb-db-$$ && dd if=/dev/zero of=${state}/.filler bs=1k count=$(( $(df -k ${state} | tail -1 | awk '{print $4}') - ${freeKb} )) 2>/dev/null`;
      return kbUnderMount(kb.root, dbPath, ['lab', 'batching', '--backend', 'sim'], full);
    });
    for (const run of outcomes) expect(run.stderr).not.toMatch(/lab batching failed|stored as failed/);
    const faulted = outcomes.filter((run) => run.stderr.includes('(SQLITE_FULL)'));
    expect(faulted.length, outcomes.map((run) => run.stderr).join('\n')).toBeGreaterThan(0);
    for (const run of faulted) {
      expect(run.code).toBe(1);
      const line = run.stderr.split('\n').filter((l) => l.startsWith('kb: '));
      expect(line).toEqual([`kb: database ${dbPath}: the disk is full; free some space and run the command again (the change in flight was rolled back) (SQLITE_FULL)`]);
    }
  }, 120_000);

  it('kb add --edit with the database on a full disk: the note keeps the typed answer and says so; a rerun says kb scan reads it in (found by a probe: "rolled back", then "already exists")', () => {
    const kb = reviewKb();
    const dbPath = join(kb.root, '.kb/kb.db');
    const state = join(kb.root, '.kb');
    const editor = join(tempDir('kb-editor-'), 'type-answer');
    writeFileSync(editor, '#!/bin/sh\nfor f; do :; done\nprintf "Typed answer.\\n" >> "$f"\n', { mode: 0o755 });
    // Only the database's folder is full (a tmpfs over it, in the test's own mount namespace):
    // about 48 KB left, enough to open it (the WAL's -shm) but not for the scan's transaction.
    const full = `mkdir -p /tmp/kb-copy-$$ && cp -a ${state}/. /tmp/kb-copy-$$ && mount -t tmpfs -o size=2m tmpfs ${state} && cp -a /tmp/kb-copy-$$/. ${state} && rm -rf /tmp/kb-copy-$$ && (dd if=/dev/zero of=${state}/filler bs=1k count=$(($(df -k --output=avail ${state} | tail -1) - 48)) 2>/dev/null; true)`;
    const added = kbUnderMount(kb.root, dbPath, ['add', 'Full disk edit?', '--topic', 'sched', '--edit'], full, { EDITOR: editor }, { terminal: true });
    expect(added.code).toBe(1);
    expectOneLine(added.stderr);
    const note = join(kb.root, 'notes/sched/full-disk-edit.md');
    const id = cardIdOf(note);
    expect(readFileSync(note, 'utf8')).toMatch(/## Answer\n\n+Typed answer\.\n$/);
    expect(added.stderr).toBe(`kb: ${note} is written (card id ${id}), but not read into the database: database ${dbPath}: the disk is full; free some space and run kb scan to read it in (the change in flight was rolled back) (SQLITE_FULL)\n`);
    // Run again anyway (with space): nothing is overwritten, and kb says what the note needs.
    const again = runKb(['--kb', kb.root, 'add', 'Full disk edit?', '--topic', 'sched', '--answer', 'x']);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('kb: notes/sched/full-disk-edit.md already exists; nothing was written (reword the question or use --topic); it is not read into the database yet: kb scan reads it in\n');
    expect(runKb(['--kb', kb.root, 'scan']).code).toBe(0);
    expect(runKb(['--kb', kb.root, 'cards', '--json']).stdout).toContain(`"id": "${id}"`);
  });

  it('a file where kb keeps its state folder: kb says which and what to do', () => {
    const root = writeKb({ 'kb.json': '{}\n', '.kb': 'a file, not the state folder' });
    const due = runKb(['--kb', root, 'due']);
    expect(due.code).toBe(1);
    expectOneLine(due.stderr);
    expect(due.stderr).toBe(`kb: ${join(root, '.kb')}: something already stands there (a file where kb makes a folder?); move it away (EEXIST on mkdir)\n`);
  });

  it('KB_DB naming a folder: kb says it is a folder, not that its folder may be missing (found as a user: "check that its folder exists and is writable" for KB_DB=/tmp)', () => {
    const root = writeKb({ 'kb.json': '{}\n' });
    const folder = tempDir('kb-db-folder-');
    const due = runKb(['--kb', root, 'due'], { env: { KB_DB: folder, COLUMNS: '1000' } });
    expect(due.code).toBe(1);
    expectOneLine(due.stderr);
    expect(due.stderr).toBe(`kb: database ${folder}: a folder stands there, not a database file; set KB_DB to a file's path (SQLITE_CANTOPEN)\n`);
  });

  it('KB_DB naming a folder kb can only read (its parent read-only): a folder, not "disk I/O error; check the disk (dmesg)" (found as a user: KB_DB=~ under a /home only root writes)', () => {
    const root = writeKb({ 'kb.json': '{}\n' });
    const parent = tempDir('kb-db-parent-');
    const folder = join(parent, 'home');
    mkdirSync(folder);
    // A read-only bind mount of the parent: kb opens the "database" read-only, and reading a folder fails as SQLITE_IOERR_READ.
    const due = kbUnderMount(root, folder, ['due'], `mount --bind -o ro ${parent} ${parent}`, { COLUMNS: '1000' });
    expect(due.code).toBe(1);
    expectOneLine(due.stderr);
    expect(due.stderr).toMatch(new RegExp(`^kb: database ${folder}: a folder stands there, not a database file; set KB_DB to a file's path \\(SQLITE_\\w+\\)\\n$`));
  });

  it.runIf(process.platform === 'linux')('KB_DB in a folder that cannot be made under /proc: one line, not a hang (kb spun at 100% CPU: Node\'s recursive mkdir retries ENOENT forever)', () => {
    const root = writeKb({ 'kb.json': '{}\n' });
    const due = runKb(['--kb', root, 'due'], { env: { KB_DB: '/proc/kb-test-folder/kb.db', COLUMNS: '1000' }, timeoutMs: 20_000 });
    expect(due.code).toBe(1);
    expectOneLine(due.stderr);
    expect(due.stderr).toBe('kb: /proc/kb-test-folder: no such file or folder (ENOENT on mkdir)\n');
  });

  it('KB_DB naming a note: kb says it is not a database and changes nothing (found as a user: it said to move the note aside, "mv note.md note.md.broken", and kb would rebuild it)', () => {
    const root = writeKb({ 'kb.json': '{}\n', 'notes/a.md': '---\nid: aaaaaaaaaaaa\n---\n# What is TTFT?\n\n## Answer\n\nTime to first token, long enough to fill a header page of a database.\n'.repeat(3) });
    const note = join(root, 'notes/a.md');
    const before = readFileSync(note, 'utf8');
    const due = runKb(['--kb', root, 'due'], { env: { KB_DB: note, COLUMNS: '1000' } });
    expect(due.code).toBe(1);
    expectOneLine(due.stderr);
    expect(due.stderr).toBe(`kb: database ${note}: not a SQLite database, so not kb's (KB_DB names another file?); kb changed nothing in it: set KB_DB to a database file's path, or unset it\n`);
    expect(due.stderr).not.toContain('mv ');
    expect(readFileSync(note, 'utf8')).toBe(before);
    expect(existsSync(`${note}-wal`)).toBe(false);
  });

  it("KB_DB naming another program's SQLite database: refused, nothing written into it (found as a user: kb added its tables and switched it to WAL)", () => {
    const root = writeKb({ 'kb.json': '{}\n', 'notes/a.md': '# What is TTFT?\n\n## Answer\n\nTime to first token.\n' });
    const foreign = join(tempDir('kb-foreign-'), 'places.sqlite');
    const other = new Database(foreign);
    other.exec("CREATE TABLE bookmarks (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO bookmarks (url) VALUES ('https://example.com')");
    other.close();
    const before = readFileSync(foreign);
    for (const args of [['due'], ['scan'], ['doctor']]) {
      const run = runKb(['--kb', root, ...args], { env: { KB_DB: foreign, COLUMNS: '1000' } });
      expect(run.code).toBe(1);
      expectOneLine(run.stderr);
      expect(run.stderr).toBe(`kb: database ${foreign}: a SQLite database of another program (tables bookmarks), not kb's; kb changed nothing in it: set KB_DB to a new file's path, or unset it\n`);
    }
    expect(readFileSync(foreign).equals(before)).toBe(true);
    expect(existsSync(`${foreign}-wal`)).toBe(false);
    // A new file at KB_DB is kb's own: made and used as ever.
    expect(runKb(['--kb', root, 'due'], { env: { KB_DB: join(tempDir('kb-db-new-'), 'kb.db') } }).code).toBe(0);
  });

  it('inside kb review: the screen closes and the one line is left on the terminal', async () => {
    const kb = reviewKb();
    const dbPath = join(kb.root, '.kb/kb.db');
    tmux = new TmuxKb();
    const home = tempDir('kb-home-');
    tmux.startProgram(
      ['sh', '-c', `${process.execPath} ${kbBin} --kb ${kb.root} review; echo "exit code $?"; sleep 600`],
      { HOME: home, XDG_DATA_HOME: join(home, 'data'), PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json') },
    );
    await tmux.waitFor('What is TTFT and why does it matter for chat?');
    tmux.send('Space');
    await tmux.waitFor('1 Again');
    const holder = new Database(dbPath);
    // The late scan may still be writing: take the lock once it is free.
    holder.pragma('busy_timeout = 30000');
    holder.exec('BEGIN EXCLUSIVE');
    try {
      tmux.send('3');
      const screen = await tmux.waitFor('exit code');
      // Wrapped under its "kb: " between words (the terminal had broken it mid-word, found as a user).
      const lines = screen.slice(screen.indexOf('kb: database'), screen.indexOf('exit code')).trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(1);
      expect(lines.slice(1).every((line) => line.startsWith('    ') && line.length < 100)).toBe(true);
      expect(lines.join(' ').replace(/\s+/g, ' ')).toContain(`kb: database ${dbPath}: another process kept it locked past the 5 s kb waits`);
      expect(screen).toContain('exit code 1');
      expect(screen).not.toMatch(/^\s+at /m);
      expect(screen).not.toContain('What is TTFT');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  }, TMUX_TEST_TIMEOUT_MS);
});

/** Whether this machine lets a test mount in a private namespace (CI does: there the tests never skip). */
const canMount = spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs tmpfs /mnt']).status === 0;

describe('a knowledge base on a read-only file system (found by a new-user probe: every command said "unable to open database file")', () => {
  // The whole knowledge base (notes, .kb/ with no -wal or -shm left, as a clean close leaves it)
  // remounted read-only in a private mount namespace: nothing outside the test sees the mount,
  // and it goes away with kb's process (nothing to unmount after).
  const readOnly = (root: string) => `mount --bind ${root} ${root} && mount -o remount,ro,bind ${root}`;

  it.skipIf(!canMount && !process.env.CI)('commands that only read work as the database was; commands that write say in one line that it is read-only', () => {
    const kb = reviewKb();
    const dbPath = join(kb.root, '.kb/kb.db');
    const id = cardIdOf(kb.ttftPath);
    expect(runKb(['--kb', kb.root, 'rate', id, 'good']).code).toBe(0);
    expect(existsSync(`${dbPath}-wal`) || existsSync(`${dbPath}-shm`)).toBe(false);
    const before = readFileSync(kb.ttftPath, 'utf8');
    const run = (args: string[], env?: Record<string, string>) => kbUnderMount(kb.root, dbPath, args, readOnly(kb.root), env);
    const notice = `kb: warning: database ${dbPath} is on a read-only file system: shown as kb last stored it (notes and review logs changed since are not read in)\n`;

    const due = run(['due']);
    expect(due.code, due.stderr).toBe(0);
    expect(due.stderr).toBe(notice);
    expect(due.stdout).toMatch(/^Due now: /);
    const cards = run(['cards', '--json']);
    expect(cards.code, cards.stderr).toBe(0);
    expect((JSON.parse(cards.stdout) as Array<{ id: string; reps: number }>).find((card) => card.id === id)?.reps).toBe(1);
    expect(run(['stats']).code).toBe(0);
    const doctor = run(['doctor']);
    expect(doctor.code, doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(/0 errors/);

    const refused = `kb: database ${dbPath}: the file system holding it is read-only; remount it read-write to change anything (kb due, cards, stats, export and doctor without --fix only read, and work there) (SQLITE_READONLY)\n`;
    for (const args of [['rate', id, 'good'], ['scan'], ['doctor', '--fix'], ['add', 'New?', '--answer', 'x']]) {
      const result = run(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toBe(refused);
    }
    // KB_DEBUG=1 adds the trace, as the README says.
    const debug = run(['rate', id, 'good'], { KB_DEBUG: '1' });
    expect(debug.stderr.split('\n')[0]).toBe(refused.trimEnd());
    expect(debug.stderr).toMatch(/^\s+at /m);
    // A database not yet made there cannot be: said the same way (it was "unable to open database file").
    const missing = join(kb.root, '.kb/other.db');
    const fresh = kbUnderMount(kb.root, missing, ['due'], readOnly(kb.root), { KB_DEBUG: '1' });
    expect(fresh.code).toBe(1);
    expect(fresh.stderr.split('\n')[0]).toBe(`kb: database ${missing}: the file system holding it is read-only; remount it read-write to change anything (kb due, cards, stats, export and doctor without --fix only read, and work there) (SQLITE_CANTOPEN)`);
    expect(fresh.stderr).toMatch(/^\s+at /m);

    expect(ratings(kb.root)).toBe(1);
    expect(readFileSync(kb.ttftPath, 'utf8')).toBe(before);
  }, 120_000);
});
