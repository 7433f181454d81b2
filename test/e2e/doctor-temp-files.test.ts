// Issue #13 item 18: the temp files a killed kb leaves (`.<note>.md.<pid>.<hex>.kb-tmp`) are
// reported by kb doctor when their process is gone, and removed by --fix; a live process's
// temp file and files kb did not name are left alone.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { note } from './scan-fixtures.ts';

/** A wide terminal: each of kb doctor's findings on one line, read whole (piped, it wraps at 80 columns). */
const WIDE = { env: { COLUMNS: '1000' } };

/** The id of a process that has ended (a child that ran and exited). */
function deadPid(): number {
  const child = spawnSync('true');
  return child.pid as number;
}

describe('kb doctor: stale temp files', () => {
  it('reports kb temp files whose process is gone, and --fix removes only those', () => {
    const root = writeKb({ 'notes/a.md': note('A'), 'cards/deck.md': '## Q?\nA.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const dead = deadPid();
    const stale = [`notes/.a.md.${dead}.0badf00d.kb-tmp`, `cards/.deck.md.${dead}.12345678.kb-tmp`, `notes/deep/.b.md.${dead}.abcdef01.kb-tmp`];
    const live = `notes/.a.md.${process.pid}.deadbeef.kb-tmp`; // the test runner: a process that runs
    const notOurs = ['notes/.a.md.swp', `notes/a.md.${dead}.0badf00d.kb-tmp`, `notes/.a.md.${dead}.xyz.kb-tmp`];
    mkdirSync(join(root, 'notes/deep'));
    for (const path of [...stale, live, ...notOurs]) writeFileSync(join(root, path), 'half a note');

    const json = JSON.parse(runKb(['--kb', root, 'doctor', '--json']).stdout);
    expect(json.staleTempFiles).toEqual(stale.sort().map((path) => ({ path, pid: dead, removed: false })));
    expect(json.warnings).toBe(3);
    const text = runKb(['--kb', root, 'doctor'], WIDE);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`warning: notes/.a.md.${dead}.0badf00d.kb-tmp: a temp file left by kb process ${dead}, which is gone; kb doctor --fix removes it`);

    const fixed = runKb(['--kb', root, 'doctor', '--fix'], WIDE);
    expect(fixed.stdout).toContain(`fixed: removed notes/.a.md.${dead}.0badf00d.kb-tmp (a temp file of kb process ${dead}, which is gone)`);
    expect(fixed.stdout).toMatch(/0 errors, 0 warnings/);
    for (const path of stale) expect(existsSync(join(root, path))).toBe(false);
    for (const path of [live, ...notOurs]) expect(existsSync(join(root, path))).toBe(true);
    expect(JSON.parse(runKb(['--kb', root, 'doctor', '--json']).stdout).staleTempFiles).toEqual([]);
    expect(readdirSync(join(root, 'notes')).sort()).toEqual(['.a.md.swp', `.a.md.${dead}.xyz.kb-tmp`, `.a.md.${process.pid}.deadbeef.kb-tmp`, 'a.md', `a.md.${dead}.0badf00d.kb-tmp`, 'deep'].sort());
  });

  it('shows the first three of many, then a count; --verbose lists them all', () => {
    const root = writeKb({ 'notes/a.md': note('A') });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const dead = deadPid();
    const stale = Array.from({ length: 40 }, (_, n) => `notes/.a.md.${dead}.${n.toString(16).padStart(8, '0')}.kb-tmp`);
    for (const path of stale) writeFileSync(join(root, path), 'half a note');

    const text = runKb(['--kb', root, 'doctor'], WIDE);
    expect(text.stdout.split('\n').filter((line) => line.includes('.kb-tmp'))).toHaveLength(3);
    expect(text.stdout).toContain('  and 37 more stale temp files (kb doctor --verbose lists them all)\n');
    expect(text.stdout).toMatch(/40 warnings\n$/);
    const verbose = runKb(['--kb', root, 'doctor', '--verbose'], WIDE);
    expect(verbose.stdout.split('\n').filter((line) => line.includes('.kb-tmp'))).toHaveLength(40);
    expect(verbose.stdout).not.toContain('more stale temp files');
  });
});
