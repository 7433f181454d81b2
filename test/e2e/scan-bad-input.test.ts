import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kbBin, runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { fingerprint, note, openDb, withoutIds } from './scan-fixtures.ts';

function runKbAsync(args: string[], home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [kbBin, ...args], {
      env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('kb scan on bad input', () => {
  it('skips what it cannot read with a warning, runs no code, and changes nothing but ids', () => {
    const marker = join(tempDir(), 'executed');
    const root = writeKb({
      'notes/good.md': note('Good'),
      'notes/js.md': `---js\n{ x: require('fs').writeFileSync(${JSON.stringify(marker)}, 'yes') }\n---\n# JS\n`,
      'notes/tag.md': `---\nx: !!js/function 'function () { require("fs").writeFileSync(${JSON.stringify(marker)}, "yes") }'\n---\n# Tag\n`,
      'notes/binary.md': Buffer.from([0x23, 0x20, 0x00, 0x01, 0x02]),
      'notes/latin1.md': Buffer.from('# caf\xe9\n', 'latin1'),
      'notes/huge.md': `# Huge\n\n${'x'.repeat(5 * 1024 * 1024 + 10)}\n`,
      'notes/empty.md': '',
      'notes/bom-crlf.md': `\uFEFF${note('BOM and CRLF').replace(/\n/g, '\r\n')}`,
      'notes/wrong-types.md': note('Wrong types').replace('difficulty: medium', 'difficulty: 7').replace("next_review: '2025-10-19'", 'next_review: tomorrow'),
    });
    const before = fingerprint(root);
    const result = runKb(['--kb', root, 'scan', '--json']);
    expect(result.code).toBe(1); // ---js and custom tags are errors
    const report = JSON.parse(result.stdout);
    const files = (list: { file: string }[]) => [...new Set(list.map((d) => d.file))].sort();
    expect(files(report.errors)).toEqual(['notes/js.md', 'notes/tag.md']);
    expect(files(report.warnings)).toEqual(expect.arrayContaining(['notes/binary.md', 'notes/huge.md', 'notes/latin1.md', 'notes/wrong-types.md']));
    expect(() => readFileSync(marker)).toThrow();
    expect(report.warnings).toContainEqual(expect.objectContaining({ file: 'notes/empty.md', message: expect.stringMatching(/^empty file/) }));
    expect(report.cards.total).toBe(3); // good, bom-crlf, wrong-types: an empty file is no card

    const after = fingerprint(root);
    for (const [path, file] of before) {
      expect(withoutIds(after.get(path)!.text), path).toBe(file.text);
    }
    const bomCrlf = readFileSync(join(root, 'notes/bom-crlf.md'));
    expect(bomCrlf.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(bomCrlf.toString('utf8')).toMatch(/\r\nid: [a-z2-7]{12}\r\n/);
  });

  it('warns a named pipe named like a note, naming it, and never blocks on it (it was skipped without a word)', () => {
    const root = writeKb({ 'notes/good.md': note('Good') });
    execFileSync('mkfifo', [join(root, 'notes/pipe.md')]);
    const scan = runKb(['--kb', root, 'scan', '--json'], { timeoutMs: 30_000 });
    expect(scan.code).toBe(0);
    const report = JSON.parse(scan.stdout);
    expect(report.warnings).toEqual([{ file: 'notes/pipe.md', severity: 'warning', message: 'not a regular file (named pipe); skipped' }]);
    expect(report.cards.total).toBe(1);
    expect(runKb(['--kb', root, 'scan']).stderr).toContain('warning: notes/pipe.md: not a regular file (named pipe); skipped');
  });

  it('a review_count no database integer holds (1e308, 2^62) is a warning on its line, not a fault that stops every command (found as a user)', () => {
    const reviewed = (count: string) => note('Counted').replace('review_count: 0', `review_count: ${count}`).replace('last_reviewed: null', "last_reviewed: '2025-10-10'");
    const root = writeKb({ 'notes/good.md': note('Good'), 'notes/huge.md': reviewed('1e308'), 'notes/big.md': reviewed('4611686018427387904') });
    const scan = runKb(['--kb', root, 'scan', '--json']);
    expect(scan.stderr).toBe('');
    expect(scan.code).toBe(0);
    const report = JSON.parse(scan.stdout);
    expect(report.cards.total).toBe(3);
    expect(report.warnings.map((d: { file: string; line: number; message: string }) => [d.file, d.line, d.message]).sort()).toEqual([
      ['notes/big.md', 5, 'review_count: expected a whole number >= 0, got 4611686018427388000; ignored'],
      ['notes/huge.md', 5, 'review_count: expected a whole number >= 0, got 1e+308; ignored'],
    ]);
    const due = runKb(['--kb', root, 'due']);
    expect(due.code).toBe(0);
    expect(due.stdout).toContain('Counted');
  });

  it("says a frontmatter problem once, as kb's own line: yaml's warning does not leak to stderr (found as a user)", () => {
    const root = writeKb({ 'notes/daily.md': '---\ncreated: {{date}}\n---\n# A daily note?\n\nYes.\n' });
    const scan = runKb(['--kb', root, 'scan']);
    expect(scan.stderr).not.toMatch(/\(node:\d+\) Warning|mapAsMap/);
    expect(scan.stdout + scan.stderr).toMatch(/notes\/daily\.md:2: created:/);
  });

  it('never writes an id through a symbolic link leading outside the knowledge base', () => {
    const outside = tempDir('kb-outside-');
    writeFileSync(join(outside, 'shared.md'), note('Shared'));
    const root = writeKb({});
    symlinkSync(join(outside, 'shared.md'), join(root, 'notes/shared.md'));
    const original = readFileSync(join(outside, 'shared.md'), 'utf8');
    const result = runKb(['--kb', root, 'scan', '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.cards.added).toBe(1);
    expect(report.warnings).toEqual([expect.objectContaining({ file: 'notes/shared.md', message: expect.stringContaining('not written') })]);
    expect(readFileSync(join(outside, 'shared.md'), 'utf8')).toBe(original);
  });

  it('survives two scans at once: no corruption, no duplicate cards', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`notes/n${i}.md`] = note(`Note ${i}`);
    const root = writeKb(files);
    const home = tempDir('kb-home-');
    const results = await Promise.all([runKbAsync(['--kb', root, 'scan', '--json'], home), runKbAsync(['--kb', root, 'scan', '--json'], home)]);
    for (const result of results) expect(result.stderr).not.toMatch(/SQLITE|Error:/);
    const settle = runKb(['--kb', root, 'scan', '--json']);
    expect(settle.code).toBe(0);
    const db = openDb(root);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.prepare('SELECT count(*) FROM cards WHERE orphan = 0').pluck().get()).toBe(30);
    expect(db.prepare('SELECT count(*) FROM cards WHERE orphan = 0 AND id_in_file = 1').pluck().get()).toBe(30);
    db.close();
    for (let i = 0; i < 30; i++) expect(readFileSync(join(root, `notes/n${i}.md`), 'utf8').match(/^id: /gm)).toHaveLength(1);
  });
});
