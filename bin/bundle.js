// kb's start-up build. Run from its ~200 TypeScript sources and ~300 package modules, kb
// spends most of a second resolving, transforming and linking modules before it draws
// anything. So bin/kb.js runs a bundle instead: esbuild joins the sources and the pure-JS
// packages into one CommonJS file in node_modules/.cache/kb/ (each command's heavy parts
// stay behind lazy initializers, so `kb due` never evaluates Ink), which bin/run-bundle.js
// runs with a code cache of its own. The bundle is keyed by the size and mtime of every
// source file, the lockfile and this file: an edit is picked up on the next run, as with
// tsx, and nothing generated is ever committed.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = join(root, 'src/cli/main.ts');
export const cacheDir = join(root, 'node_modules/.cache/kb');

/**
 * Left to Node at run time: native addons, packages loaded through createRequire or a
 * worker, the build tools themselves, and undici (only `kb lab --endpoint` needs it, and a
 * licence comment of its would make the bundle non-ASCII).
 */
const external = ['react-devtools-core', 'better-sqlite3', 'webgpu', 'wabt', 'tsx', 'tsx/*', 'esbuild', 'gpt-tokenizer', 'gpt-tokenizer/*', '@open-spaced-repetition/binding', ...serveOnly(), ...scanOnly(), 'undici'];

/**
 * The block parser of a scan that reads files: loaded from node_modules when one does. In the
 * bundle, markdown-it's typographer (which kb never runs) has a regex literal with a `…` in
 * it, which esbuild leaves as it is: the whole bundle would be held two bytes a character.
 */
function scanOnly() {
  return ['markdown-it', 'markdown-it-footnote'];
}

/** kb serve's HTTP server and metrics (~1.1 MB bundled): loaded from node_modules when it runs, not read by every start. */
function serveOnly() {
  return ['fastify', 'prom-client'];
}

/**
 * What a bundle of the checkout at `base` depends on, as one short key: the size and mtime
 * of every file under src/, of the lockfile and tsconfig, and of this file; and Node's version.
 */
export function fingerprint(base = root) {
  const hash = new Fnv1a();
  const files = readdirSync(join(base, 'src'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  // Concatenation, not path.join: its normalising costs more than all the stats.
  const paths = files.map((file) => `${file.parentPath}${sep}${file.name}`).sort();
  paths.push(join(base, 'package-lock.json'), join(base, 'tsconfig.json'), fileURLToPath(import.meta.url));
  for (const path of paths) {
    const stat = statSync(path, { throwIfNoEntry: false });
    hash.update(`${path.slice(base.length)}\0${stat?.size}\0${stat?.mtimeMs}\n`);
  }
  hash.update(process.version);
  return hash.digest();
}

/**
 * 64-bit FNV-1a over UTF-16 code units, as two 32-bit halves. A cache key needs no
 * cryptography, and node:crypto alone would add ~5 ms to every start.
 */
class Fnv1a {
  high = 0xcbf29ce4;
  low = 0x84222325;
  update(text) {
    for (let i = 0; i < text.length; i++) {
      this.low ^= text.charCodeAt(i);
      // multiply by the FNV prime 2^40 + 0x1b3, in 16-bit pieces to stay exact
      const low = this.low;
      const high = this.high;
      const lowProduct = (low & 0xffff) * 0x1b3;
      const midProduct = (low >>> 16) * 0x1b3 + (lowProduct >>> 16);
      this.low = ((midProduct & 0xffff) << 16) | (lowProduct & 0xffff);
      this.high = (Math.imul(high, 0x1b3) + (midProduct >>> 16) + (low << 8)) >>> 0;
      this.low >>>= 0;
    }
  }
  digest() {
    return this.high.toString(16).padStart(8, '0') + this.low.toString(16).padStart(8, '0');
  }
}

/**
 * Each source module keeps its own import.meta.url: kb finds the SQL schema, the WAT kernels
 * and its worker entry points beside its sources, and the workers still run from source.
 */
const keepSourceUrls = {
  name: 'keep-source-urls',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.tsx?$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents: text, loader: args.path.endsWith('.tsx') ? 'tsx' : 'ts' };
    });
  },
};

/**
 * Fixes to packages, applied as the bundle is built. Each one replaces exact text; if a
 * package's text changes, its patch is not applied, and test/e2e/bundle.test.ts, which
 * checks that each patch applies to the installed version, fails. (Without the await
 * patches the CommonJS build fails, and kb runs from source, slowly; KB_DEBUG_BUNDLE=1 says so.)
 */
export const packagePatches = [
  {
    // Yoga (Ink's layout engine) waits for its WebAssembly with a top-level await, which a
    // CommonJS bundle cannot hold. Its Emscripten loader is asked to instantiate at once
    // instead (next patch): then the module is ready when loadYoga() returns.
    file: /[\\/]yoga-layout[\\/]dist[\\/]src[\\/]index\.js$/,
    replace: [['const Yoga = wrapAssembly(await loadYoga());', 'const yogaModule = { kbInstantiateAtOnce: true };\nloadYoga(yogaModule);\nconst Yoga = wrapAssembly(yogaModule);']],
  },
  {
    // The loader's own synchronous path: wa() decodes the base64 data: URL it ships, and a
    // (the loader's receiveInstance) takes the instance. This also skips its fetch() of
    // that data: URL, whose first call loaded Node's whole HTTP client (~60 ms).
    file: /[\\/]yoga-wasm-base64-esm\.js$/,
    replace: [
      [
        '(function(){return w||"function"!=typeof WebAssembly.instantiateStreaming',
        '(function(){if(h.kbInstantiateAtOnce){a(new WebAssembly.Instance(new WebAssembly.Module(wa()),d));return Promise.resolve()}return w||"function"!=typeof WebAssembly.instantiateStreaming',
      ],
    ],
  },
  {
    // Ink connects React DevTools when DEV=true, with top-level awaits a CommonJS bundle
    // cannot hold. kb does not ship DevTools: the connection starts without being awaited,
    // and Ink names itself without reading its package.json.
    file: /[\\/]ink[\\/]build[\\/]reconciler\.js$/,
    replace: [
      ["await import('./devtools.js');", "void import('./devtools.js');"],
      ['const loaded = await loadPackageJson();', 'const loaded = {};'],
    ],
  },
  {
    file: /[\\/]ink[\\/]build[\\/]devtools\.js$/,
    replace: [['if (await isDevToolsReachable()) {', 'if (false) {']],
  },
  {
    // string-width builds its RGI emoji pattern when loaded: V8 expands \p{RGI_Emoji} into
    // thousands of sequences, ~17 ms of every start. Every RGI emoji sequence starts with
    // an emoji character (UTS #51), and the only ones that start with an ASCII character
    // are keycaps, a digit, # or * followed by U+FE0F. So the pattern is needed only for a
    // grapheme that starts like that, and is built the first time one is measured: text
    // with no emoji (digits included) never builds it.
    file: /[\\/]string-width[\\/]index\.js$/,
    replace: [
      [
        'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;',
        'const emojiStartRegex = /^(?:[\\p{Emoji}--[#*0-9]]|[#*0-9]\\uFE0F)/v;\nlet rgiEmojiRegex;\nconst isRgiEmoji = (segment) => emojiStartRegex.test(segment) && (rgiEmojiRegex ??= new RegExp("^\\\\p{RGI_Emoji}$", "v")).test(segment);',
      ],
      ['rgiEmojiRegex.test(segment)', 'isRgiEmoji(segment)'],
    ],
  },
];

/** The text with every replacement of `patch` made, or null if any is not found. */
export function applyPatch(patch, text) {
  let patched = text;
  for (const [from, to] of patch.replace) {
    if (!patched.includes(from)) return null;
    patched = patched.replace(from, to);
  }
  return patched;
}

const patchPackages = {
  name: 'patch-packages',
  setup(build) {
    for (const patch of packagePatches) {
      build.onLoad({ filter: patch.file }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        return { contents: applyPatch(patch, text) ?? text, loader: 'js' };
      });
    }
  },
};

/**
 * Worker threads, bundled beside main.cjs: the scan's (src/kb/worker-script.ts picks them), the
 * engine's and kb serve's API servers' (src/engine/thread-entry.ts). From source each one would load tsx and its
 * modules again, ~0.3 CPU-seconds a thread.
 */
const workerEntries = {
  'scan-worker': join(root, 'src/kb/scan-worker.ts'),
  'swap-worker': join(root, 'src/kb/swap-worker.ts'),
  'engine-worker': join(root, 'src/engine/host/engine-worker.ts'),
  'cpu-worker': join(root, 'src/engine/backend/cpu/worker.ts'),
  'api-server': join(root, 'src/serve/api-server-thread.ts'),
};

async function build(outdir) {
  const esbuild = await import('esbuild');
  const options = {
    bundle: true,
    // One CommonJS file: bin/run-bundle.js can then compile it through vm.Script, whose
    // code cache is taken after kb has run (see there). Lazily imported parts stay lazy.
    format: 'cjs',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    // esbuild's tables do not credit Node with the RegExp v flag, and would rewrite such
    // literals as new RegExp(...): compiled at load, where string-width's emoji pattern alone
    // costs ~10 ms of every start. As literals, V8 compiles them when first used.
    supported: { 'regexp-set-notation': true },
    // No comments or layout: a smaller file to read, and an ASCII one (esbuild escapes the
    // rest; comments it would keep), which V8 holds as one byte per character: read ~2.5x
    // faster. Names stay, so stack traces still read; KB_FROM_SOURCE=1 gives source lines.
    minifyWhitespace: true,
    // Legal comments (/*! ... */) are the ones esbuild keeps, unescaped (light-my-request's
    // names an author with an umlaut); this local cache is built from node_modules, which
    // keeps every package's licence.
    legalComments: 'none',
    absWorkingDir: root,
    external,
    plugins: [keepSourceUrls, patchPackages],
    jsx: 'automatic',
    define: {
      // React's production build: its development build checks every render (slower to start and to draw).
      'process.env.NODE_ENV': '"production"',
      // What packages ask of import.meta, answered for the bundle's own file.
      'import.meta.url': '__kbBundleUrl',
      'import.meta.resolve': '__kbResolve',
      // Where the bundles are: src/kb/worker-script.ts starts the workers' bundles from there.
      'globalThis.kbBundleDir': '__dirname',
    },
    banner: {
      js: "var __kbBundleUrl = require('node:url').pathToFileURL(__filename).href;\nvar __kbResolve = (specifier) => require('node:url').pathToFileURL(require.resolve(specifier)).href;",
    },
    logLevel: 'silent',
  };
  await Promise.all([
    esbuild.build({ ...options, entryPoints: [entry], outfile: join(outdir, 'main.cjs') }),
    esbuild.build({ ...options, entryPoints: workerEntries, outdir, entryNames: '[name]', outExtension: { '.js': '.cjs' } }),
  ]);
}

/**
 * How long a bundle of other sources stays after its last start. Each is ~35 MB with its code
 * caches, and every edit of a source makes a new one: a day of edits had left 3.4 GB here when
 * they lasted a day. A kb still running on a bundle that goes starts its worker threads from
 * source (src/kb/worker-script.ts, src/engine/thread-entry.ts); its own code is read already.
 */
export const UNUSED_BUNDLE_MS = 3_600_000;

/** Marks a bundle as started now (its folder's mtime), at most every few minutes: the prune keeps bundles in use. */
export function markUsed(dir, now = Date.now()) {
  try {
    if (now - statSync(dir).mtimeMs > UNUSED_BUNDLE_MS / 12) utimesSync(dir, now / 1000, now / 1000);
  } catch {
    // a read-only install or a bundle just pruned: nothing to keep
  }
}

/** Bundles (and staging folders of builds that died) not started for UNUSED_BUNDLE_MS go. */
export function pruneOldBundles(current, dir = cacheDir, now = Date.now()) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name !== current && statSync(path).mtimeMs < now - UNUSED_BUNDLE_MS) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * The bundle's file, built first if the sources changed; null when it cannot be built here
 * (a read-only install, say), and kb then runs from source through tsx.
 */
export async function bundledEntry() {
  let key;
  try {
    key = fingerprint();
  } catch {
    return null; // not a source checkout kb can read
  }
  const dir = join(cacheDir, key);
  const main = join(dir, 'main.cjs');
  if (existsSync(main)) {
    markUsed(dir);
    return main;
  }
  try {
    mkdirSync(cacheDir, { recursive: true });
    // Build aside and rename, so that two kb processes starting at once never see half a bundle.
    const staging = join(cacheDir, `.staging-${process.pid}-${Date.now()}`);
    await build(staging);
    writeFileSync(join(staging, 'key'), `${key}\n`);
    try {
      renameSync(staging, dir);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process got there first
    }
    pruneOldBundles(key);
    return existsSync(main) ? main : null;
  } catch (error) {
    if (process.env.KB_DEBUG_BUNDLE) process.stderr.write(`kb: running from source; bundle failed: ${error?.stack ?? error}\n`);
    return null;
  }
}
