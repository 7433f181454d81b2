// bin/kb.js runs a bundle of the sources (bin/bundle.js): it must behave exactly as the
// sources run through tsx, and be rebuilt whenever a source changes.
import { cpSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: bin/ is plain JavaScript without declarations
import { cacheDir, fingerprint } from '../../bin/bundle.js';
import { runKb, tempDir } from '../helpers/kb-cli.ts';
import { reviewKb } from './review-fixture.ts';

describe('the start-up bundle', () => {
  it('answers as the sources do, from a bundle keyed by the current sources', () => {
    const kb = reviewKb();
    const bundled = runKb(['--kb', kb.root, 'due', '--json']);
    const fromSource = runKb(['--kb', kb.root, 'due', '--json'], { env: { KB_FROM_SOURCE: '1' } });
    expect(bundled.code).toBe(0);
    const withoutClock = (stdout: string) => ({ ...JSON.parse(stdout), now: null });
    expect(withoutClock(bundled.stdout)).toEqual(withoutClock(fromSource.stdout));
    expect(JSON.parse(bundled.stdout).cards).toHaveLength(2);
    const key = (fingerprint as () => string)();
    expect(existsSync(join(cacheDir as string, key, 'main.mjs'))).toBe(true);
    expect(readFileSync(join(cacheDir as string, key, 'key'), 'utf8')).toBe(`${key}\n`);
  });

  it('changes its key when any source file, the lockfile or tsconfig changes', () => {
    const base = tempDir('kb-bundle-key-');
    mkdirSync(join(base, 'src/cli'), { recursive: true });
    writeFileSync(join(base, 'src/cli/main.ts'), 'export {};\n');
    writeFileSync(join(base, 'package-lock.json'), '{}\n');
    writeFileSync(join(base, 'tsconfig.json'), '{}\n');
    const key = (fingerprint as (base: string) => string);
    const first = key(base);
    expect(key(base)).toBe(first);
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(base, 'src/cli/main.ts'), later, later);
    const edited = key(base);
    expect(edited).not.toBe(first);
    cpSync(join(base, 'src/cli/main.ts'), join(base, 'src/cli/new.ts'));
    expect(key(base)).not.toBe(edited);
    const withNew = key(base);
    writeFileSync(join(base, 'package-lock.json'), '{"lockfileVersion":3}\n');
    expect(key(base)).not.toBe(withNew);
  });
});
