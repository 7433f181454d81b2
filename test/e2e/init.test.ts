import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runKb, tempDir } from '../helpers/kb-cli.ts';

describe('kb init', () => {
  it('creates an empty knowledge base with settings and a .gitignore, found from inside it', () => {
    const dir = join(tempDir(), 'my-kb');
    // COLUMNS: the line unwrapped (a pipe takes $COLUMNS), as the temp path makes it long.
    const result = runKb(['init', dir, '--empty'], { env: { COLUMNS: '400' } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`next: cd ${dir} && kb add "Your first question?" --answer "Its answer."`);
    for (const folder of ['notes', 'cards', 'lab']) expect(readdirSync(join(dir, folder))).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir, 'kb.json'), 'utf8'))).toMatchObject({ desiredRetention: 0.9, newPerDay: 20 });
    // The state folder, and the temp files a killed kb leaves beside a note (so `git add -A` never commits one).
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe("# kb's database and other state\n.kb/\n.*.kb-tmp\n");

    mkdirSync(join(dir, 'notes/deep'));
    writeFileSync(join(dir, 'notes/deep/a.md'), '# A\n\nanswer\n');
    const scan = runKb(['scan', '--json'], { cwd: join(dir, 'notes/deep') });
    expect(scan.code).toBe(0);
    const report = JSON.parse(scan.stdout);
    expect(report).toMatchObject({ root: dir, bundled: false, dbPath: join(dir, '.kb/kb.db') });
    expect(report.cards.added).toBe(1);
    expect(readFileSync(join(dir, '.kb/.gitignore'), 'utf8')).toContain('*');
    // The suggestion works as printed (found as a user: without an answer it was refused).
    const added = runKb(['--kb', dir, 'add', 'Your first question?', '--answer', 'Its answer.']);
    expect(added.code, added.stderr).toBe(0);
  });

  it('prints the next command whole on a line of its own where "next:" and it are wider than the terminal', () => {
    const dir = join(tempDir(), 'my-kb');
    const command = `cd ${dir} && kb add "Your first question?" --answer "Its answer."`;
    expect(command.length).toBeGreaterThan(80);
    // At 80 columns it broke inside the quoted question: "... --answer "Its" / "answer."".
    const result = runKb(['init', dir, '--empty'], { env: { COLUMNS: '80' } });
    expect(result.stdout).toBe(`created an empty knowledge base in ${dir}\nnext:\n  ${command}\n`);
    // kb init on it again: "next:" and its command fit together.
    expect(runKb(['init', dir], { env: { COLUMNS: '80' } }).stdout).toMatch(/\nnext: cd \S+ && kb review\n$/);
  });

  it('copies the bundled notes, cards and labs, and says to review next as the README does', () => {
    const dir = join(tempDir(), 'copy');
    const plain = runKb(['init', join(tempDir(), 'plain')]);
    expect(plain.stdout).toMatch(/\nnext: cd .*plain && kb review\n$/);
    const result = runKb(['init', dir, '--json']);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    const bundledCount = ['notes', 'cards', 'lab']
      .filter((folder) => existsSync(join(repoRoot, folder)))
      .flatMap((folder) => readdirSync(join(repoRoot, folder), { recursive: true }) as string[])
      .filter((name) => name.endsWith('.md')).length;
    expect(created.copied).toBe(bundledCount);
  });

  it('refuses a folder that is not empty', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'keep.txt'), 'mine');
    const result = runKb(['init', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/not empty/);
    expect(readdirSync(dir)).toEqual(['keep.txt']);
  });

  it('reports a bad kb.json naming the file and key', () => {
    const dir = join(tempDir(), 'bad');
    expect(runKb(['init', dir, '--empty']).code).toBe(0);
    writeFileSync(join(dir, 'kb.json'), '{ "newPerDay": -1 }');
    const result = runKb(['scan'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(dir, 'kb.json')}: newPerDay:`);
  });
});
