// Writing kb optimize's fitted weights into kb.json: the other keys kept, and a kb.json that
// changed under the fit (broken by an edit meanwhile, made read-only) refused with kb.json's
// own errors, never a JSON parser's (found as a user: "internal error: SyntaxError: Unexpected
// end of JSON input; this is a bug in kb", and the fit lost).
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/kb/config.ts';
import { writeConfigKey } from '../../src/kb/config-write.ts';

function kbWith(text: string): { root: string; file: string } {
  const root = mkdtempSync(join(tmpdir(), 'kb-config-write-'));
  const file = join(root, 'kb.json');
  writeFileSync(file, text);
  return { root, file };
}

describe('writeConfigKey', () => {
  it('adds the key and keeps the others as they are', () => {
    const { root, file } = kbWith('\uFEFF{\n  "newPerDay": 5\n}\n');
    writeConfigKey(root, file, 'maximumInterval', 365);
    expect(readFileSync(file, 'utf8')).toBe('\uFEFF{\n  "newPerDay": 5,\n  "maximumInterval": 365\n}\n');
  });

  it('refuses a kb.json an edit left broken or empty meanwhile, as loading it would, and leaves it as it is', () => {
    for (const text of ['{ "newPerDay": \n', '   \n']) {
      const { root, file } = kbWith(text);
      const refused = (() => {
        try {
          writeConfigKey(root, file, 'maximumInterval', 365);
        } catch (error) {
          return error;
        }
        return null;
      })();
      expect(refused).toBeInstanceOf(ConfigError);
      expect((refused as Error).message).toMatch(new RegExp(`^${file}: (not valid JSON|empty)`));
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('refuses a kb.json made read-only (chmod a-w)', () => {
    const { root, file } = kbWith('{}\n');
    chmodSync(file, 0o444);
    expect(() => writeConfigKey(root, file, 'maximumInterval', 365)).toThrow(ConfigError);
    expect(readFileSync(file, 'utf8')).toBe('{}\n');
  });
});
