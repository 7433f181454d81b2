import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runKb, tempDir } from '../helpers/kb-cli.ts';

describe('kb scan of the bundled knowledge base', () => {
  it('keeps its database in the data folder and writes nothing into the project', () => {
    const hadStateFolder = existsSync(join(repoRoot, '.kb'));
    const home = tempDir('kb-home-');
    const result = runKb(['scan', '--json'], { env: { HOME: home } });
    const report = JSON.parse(result.stdout);
    expect(report.bundled).toBe(true);
    expect(report.root).toBe(repoRoot);
    expect(report.dbPath).toBe(join(home, '.local/share/kb/bundled.db'));
    expect(report.idsWritten).toEqual([]);
    expect(existsSync(report.dbPath)).toBe(true);
    expect(existsSync(join(repoRoot, '.kb'))).toBe(hadStateFolder);
  });

  it('refuses doctor --fix there', () => {
    const result = runKb(['doctor', '--fix']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/read-only/);
  });
});
