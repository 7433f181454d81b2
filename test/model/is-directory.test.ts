// One isDirectory for the layers that ask (kb/location.ts, kb/adopt.ts, store/sqlite-fault.ts):
// the store kept a copy of its own, as it may not import kb/.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isDirectory } from '../../src/model/is-directory.ts';
import { describeSqliteFault } from '../../src/store/sqlite-fault.ts';
import { tempDir } from '../helpers/kb-cli.ts';

describe('isDirectory', () => {
  it('is true for a folder and a link to one; false for a file, a missing path, a dangling link', () => {
    const root = tempDir('kb-isdir-');
    mkdirSync(join(root, 'notes'));
    writeFileSync(join(root, 'kb.json'), '{}\n');
    symlinkSync(join(root, 'notes'), join(root, 'linked'));
    symlinkSync(join(root, 'gone'), join(root, 'dangling'));
    expect(['notes', 'linked', 'kb.json', 'missing', 'dangling'].map((name) => isDirectory(join(root, name)))).toEqual([true, true, false, false, false]);
  });

  it('is what the SQLite fault wording asks of a database path', () => {
    const folder = tempDir('kb-isdir-db-');
    const cantOpen = Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' });
    expect(describeSqliteFault(cantOpen, folder)).toBe(`database ${folder}: a folder stands there, not a database file; set KB_DB to a file's path (SQLITE_CANTOPEN)`);
  });
});
