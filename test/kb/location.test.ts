import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledRoot, locateKnowledgeBase, LocationError } from '../../src/kb/location.ts';
import { userConfigDir, userDataDir } from '../../src/model/user-dirs.ts';

function tempKb(folders: string[] = ['notes', 'cards', 'lab'], config = false): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'kb-loc-')));
  for (const folder of folders) mkdirSync(join(root, folder));
  if (config) writeFileSync(join(root, 'kb.json'), '{}\n');
  return root;
}

const noEnv = { XDG_DATA_HOME: '/tmp/kb-loc-data', XDG_CONFIG_HOME: '/tmp/kb-loc-config' };

describe('locateKnowledgeBase', () => {
  it('prefers --kb over KB_DIR over kb.json above the cwd', () => {
    const flag = tempKb();
    const env = tempKb();
    const found = tempKb([], true);
    const cwd = join(found, 'deep', 'er');
    mkdirSync(cwd, { recursive: true });
    expect(locateKnowledgeBase({ kb: flag, cwd, env: { ...noEnv, KB_DIR: env } })).toMatchObject({ root: flag, source: 'flag', bundled: false });
    expect(locateKnowledgeBase({ cwd, env: { ...noEnv, KB_DIR: env } })).toMatchObject({ root: env, source: 'env' });
    expect(locateKnowledgeBase({ cwd, env: noEnv })).toMatchObject({ root: found, source: 'config' });
  });

  it('keeps a personal database in <kb>/.kb/kb.db unless KB_DB says otherwise', () => {
    const root = tempKb();
    expect(locateKnowledgeBase({ kb: root, env: noEnv }).dbPath).toBe(join(root, '.kb', 'kb.db'));
    expect(locateKnowledgeBase({ kb: root, env: { ...noEnv, KB_DB: '/tmp/x/other.db' } }).dbPath).toBe('/tmp/x/other.db');
    expect(locateKnowledgeBase({ kb: root, env: noEnv }).configPath).toBe(join(root, 'kb.json'));
  });

  it('accepts a vault with only notes/', () => {
    const root = tempKb(['notes']);
    expect(locateKnowledgeBase({ kb: root, env: noEnv }).root).toBe(root);
  });

  it('refuses a folder that is not a knowledge base, naming the flag', () => {
    const root = tempKb([]);
    expect(() => locateKnowledgeBase({ kb: root, env: noEnv })).toThrow(LocationError);
    expect(() => locateKnowledgeBase({ kb: root, env: noEnv })).toThrow(/--kb: .* is not a knowledge base/);
    expect(() => locateKnowledgeBase({ env: { ...noEnv, KB_DIR: join(root, 'missing') } })).toThrow(/KB_DIR: .* is not a folder/);
  });

  it('falls back to the bundled knowledge base with its database in the data folder', () => {
    const cwd = tempKb([]);
    const location = locateKnowledgeBase({ cwd, env: noEnv });
    expect(location).toMatchObject({ root: bundledRoot(), bundled: true, source: 'bundled' });
    expect(location.dbPath).toBe(join(userDataDir(), 'bundled.db'));
    expect(location.configPath).toBe(join(userConfigDir(), 'kb.json'));
  });

  it('treats --kb pointing at the project itself as the bundled knowledge base', () => {
    const location = locateKnowledgeBase({ kb: bundledRoot(), env: noEnv });
    expect(location.bundled).toBe(true);
    expect(location.dbPath.startsWith(bundledRoot())).toBe(false);
  });
});
