// bin/kb.js runs a bundle of the sources (bin/bundle.js) with a code cache of its own
// (bin/run-bundle.js): it must behave exactly as the sources run through tsx, be rebuilt
// whenever a source changes, and a cache must only ever save time.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import stringWidth from 'string-width';
import { MessageChannel, Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: bin/ is plain JavaScript without declarations
import { applyPatch, cacheDir, fingerprint, markUsed, packagePatches, pruneOldBundles, UNUSED_BUNDLE_MS } from '../../bin/bundle.js';
import { threadEntry } from '../../src/engine/thread-entry.ts';
import { workerScript } from '../../src/kb/worker-script.ts';
// @ts-expect-error: bin/ is plain JavaScript without declarations
import { codeCachePath, commandName } from '../../bin/run-bundle.js';
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
    expect(existsSync(join(cacheDir as string, key, 'main.cjs'))).toBe(true);
    expect(readFileSync(join(cacheDir as string, key, 'key'), 'utf8')).toBe(`${key}\n`);
    // ASCII, so V8 holds it one byte a character (a non-ASCII regex literal in a source
    // would undo that: write such characters as escapes).
    const nonAscii = /[^\x00-\x7f].{0,40}/.exec(readFileSync(join(cacheDir as string, key, 'main.cjs'), 'utf8'));
    expect(nonAscii?.[0]).toBeUndefined();
  });

  it('keeps a code cache per command, and runs the same without it or with a broken one', () => {
    const kb = reviewKb();
    const due = () => runKb(['--kb', kb.root, 'due', '--json']);
    const first = due();
    expect(first.code).toBe(0);
    const key = (fingerprint as () => string)();
    const cache = (codeCachePath as (bundle: string, args: string[]) => string)(join(cacheDir as string, key, 'main.cjs'), ['--kb', kb.root, 'due']);
    expect(existsSync(cache)).toBe(true);
    const withoutClock = (stdout: string) => ({ ...JSON.parse(stdout), now: null });
    expect(withoutClock(due().stdout)).toEqual(withoutClock(first.stdout));
    writeFileSync(cache, 'not a code cache');
    const broken = due();
    expect(broken.code).toBe(0);
    expect(withoutClock(broken.stdout)).toEqual(withoutClock(first.stdout));
    // Rejected by V8, so made again from that run.
    expect(readFileSync(cache).length).toBeGreaterThan(1000);
  });

  it('names each cache after the command, past the --kb option', () => {
    const name = commandName as (args: string[]) => string;
    expect(name(['--kb', 'review', 'due', '--json'])).toBe('due');
    expect(name(['review', '--tag', 'x'])).toBe('review');
    expect(name(['--help'])).toBe('none');
    expect(name(['--kb', '/x', '../odd'])).toBe('other');
  });

  it('prints the version of package.json', () => {
    const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-V']) expect(runKb([flag])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('prunes bundles not started for an hour (each edit of a source made one: 3.4 GB in a day), keeping those in use', () => {
    const dir = tempDir('kb-bundle-prune-');
    const now = Date.now();
    const unused = UNUSED_BUNDLE_MS as number;
    const made = (name: string, ageMs: number) => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'main.cjs'), '');
      const at = (now - ageMs) / 1000;
      utimesSync(join(dir, name), at, at);
    };
    made('current', 3 * unused);
    made('old', 2 * unused);
    made('recent', unused / 2);
    made('started-again', 2 * unused);
    made('.staging-1-2', 2 * unused); // a build that died
    (markUsed as (dir: string, now?: number) => void)(join(dir, 'started-again'), now);
    (pruneOldBundles as (current: string, dir: string, now: number) => void)('current', dir, now);
    expect(readdirSync(dir).sort()).toEqual(['current', 'recent', 'started-again']);
  });

  it('starts worker threads from source when their bundle is gone (pruned under a kb still running)', () => {
    const dir = tempDir('kb-bundle-dir-');
    const global = globalThis as { kbBundleDir?: string };
    const source = new URL('../../src/engine/host/engine-worker.js', import.meta.url);
    global.kbBundleDir = dir;
    try {
      expect(threadEntry('engine-worker', source)).toBe(source);
      expect(workerScript('scan-worker', source).script).toBe(source);
      writeFileSync(join(dir, 'engine-worker.cjs'), '');
      writeFileSync(join(dir, 'scan-worker.cjs'), '');
      expect(threadEntry('engine-worker', source)).toBe(join(dir, 'engine-worker.cjs'));
      expect(workerScript('scan-worker', source)).toEqual({ script: join(dir, 'scan-worker.cjs'), execArgv: [] });
    } finally {
      delete global.kbBundleDir;
    }
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

type PackagePatch = { file: RegExp; replace: Array<[string, string]> };
const patches = packagePatches as PackagePatch[];
const patch = applyPatch as (patch: PackagePatch, text: string) => string | null;

describe("the bundle's package patches", () => {
  const installed = [
    fileURLToPath(new URL('../../node_modules/string-width/index.js', import.meta.url)),
    fileURLToPath(new URL('../../node_modules/yoga-layout/dist/binaries/yoga-wasm-base64-esm.js', import.meta.url)),
    fileURLToPath(new URL('../../node_modules/yoga-layout/dist/src/index.js', import.meta.url)),
    fileURLToPath(new URL('../../node_modules/ink/build/reconciler.js', import.meta.url)),
    fileURLToPath(new URL('../../node_modules/ink/build/devtools.js', import.meta.url)),
  ];

  it('each applies to the installed version of its package', () => {
    for (const file of installed) {
      const matching = patches.filter((candidate) => candidate.file.test(file));
      expect(matching, file).toHaveLength(1);
      expect(patch(matching[0], readFileSync(file, 'utf8')), file).not.toBeNull();
    }
    for (const candidate of patches) expect(installed.some((file) => candidate.file.test(file)), String(candidate.file)).toBe(true);
  });

  it('string-width measures exactly as before with its emoji pattern built on demand', async () => {
    const source = installed[0];
    const stringWidthPatch = patches.find((candidate) => candidate.file.test(source))!;
    // Beside the bundles, so that its own imports (strip-ansi, ...) resolve as in the package.
    const copy = join(cacheDir as string, `string-width-patched-${process.pid}.mjs`);
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, patch(stringWidthPatch, readFileSync(source, 'utf8'))!);
    try {
      const patched = (await import(pathToFileURL(copy).href)).default as typeof stringWidth;
      const samples = [
        'plain ASCII', 'deck-075 · review · 12', '#1 * 2 → 3', '1️⃣ · 2', '中文对齐', '한국어', '\u1100\u1161\u11A8', 'café', 'cafe\u0301', '· — → ≈ ×', '\u0600123', '\u200B',
        '👍', '👍🏽', '👨‍👩‍👧', '🇯🇵', '🇯', '1️⃣', '1\u20E3', '❤️', '❤', '☺', '©', '™️', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '👩🏽‍💻', '⌚', '⌚\uFE0E', 'ｶﾞ', '\u001B[1mbold\u001B[22m',
      ];
      for (const sample of samples) expect(patched(sample), sample).toBe(stringWidth(sample));
      // Every code point of the blocks where text and emoji meet, alone and after a letter.
      for (const [from, to] of [[0xa0, 0x33ff], [0xfe00, 0xffff], [0x1f000, 0x1faff]]) {
        for (let codePoint = from; codePoint <= to; codePoint++) {
          if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
          const text = String.fromCodePoint(codePoint);
          if (patched(text) !== stringWidth(text) || patched(`a${text}`) !== stringWidth(`a${text}`)) {
            expect(patched(text), `U+${codePoint.toString(16)}`).toBe(stringWidth(text));
            expect(patched(`a${text}`), `a U+${codePoint.toString(16)}`).toBe(stringWidth(`a${text}`));
          }
        }
      }
    } finally {
      rmSync(copy, { force: true });
    }
  });

  it('builds the scan\'s worker threads beside it, which start from there and scan as from source', async () => {
    expect(runKb(['--version']).code).toBe(0);
    const dir = join(cacheDir as string, (fingerprint as () => string)());
    // A parse worker says when its modules are loaded.
    const parser = new Worker(join(dir, 'scan-worker.cjs'));
    await expect(new Promise((resolve, reject) => parser.once('message', resolve).once('error', reject))).resolves.toBe('ready');
    await parser.terminate();
    // A swap helper, handed a write whose temp file is not there, reports it failed.
    const swapper = new Worker(join(dir, 'swap-worker.cjs'));
    const { port1, port2 } = new MessageChannel();
    const missing = join(tempDir(), 'missing.md');
    swapper.postMessage({ staged: [{ abs: missing, target: missing, folder: dirname(missing), temp: `${missing}.tmp`, fd: null, size: 0, sha256: '', mtimeMs: 0 }], counters: new SharedArrayBuffer(8), port: port2 }, [port2]);
    const failure = await new Promise<{ index: number; code?: string }>((resolve, reject) => {
      port1.once('message', resolve);
      swapper.once('error', reject);
    });
    expect(failure).toMatchObject({ index: 0, code: 'ENOENT' });
    port1.close();
    await swapper.terminate();

    // A scan big enough for both (a parse worker from 1,000 files, swap helpers from 2,000 ids to
    // write) writes every id, and reads the notes as a scan from source does.
    const notes = 2_100;
    const vault = (name: string) => {
      const root = join(tempDir(), name);
      for (let i = 0; i < notes; i++) {
        const folder = join(root, 'notes', `topic-${i % 7}`);
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, `note-${i}.md`), `---\ndifficulty: medium\n---\n# Question ${i}?\n\n## Answer\n\nAnswer ${i}.\n`);
      }
      return root;
    };
    const scans = [runKb(['--kb', vault('bundled'), 'scan', '--json']), runKb(['--kb', vault('source'), 'scan', '--json'], { env: { KB_FROM_SOURCE: '1' } })].map((run) => {
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as { errors: unknown[]; warnings: unknown[]; idsWritten: unknown[]; cards: { added: number } };
    });
    for (const scan of scans) expect(scan).toMatchObject({ errors: [], warnings: [], cards: { added: notes } });
    expect(scans[0].idsWritten).toHaveLength(notes);
    expect(scans[1].idsWritten).toHaveLength(notes);
  }, 120_000);

  it('builds the engine\'s worker threads beside it: the engine and its cpu helpers generate as from source', () => {
    const args = ['generate', '--prompt-ids', '464,509,2068', '--max-new-tokens', '6', '--threads', '2', '--json'];
    const [bundled, fromSource] = [runKb(args), runKb(args, { env: { KB_FROM_SOURCE: '1' } })].map((run) => {
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as { outputIds: number[]; text: string };
    });
    expect(bundled.outputIds).toHaveLength(6);
    expect(bundled.outputIds).toEqual(fromSource.outputIds);
    const dir = join(cacheDir as string, (fingerprint as () => string)());
    for (const name of ['engine-worker.cjs', 'cpu-worker.cjs', 'api-server.cjs']) expect(existsSync(join(dir, name)), name).toBe(true);
  }, 60_000);
});
