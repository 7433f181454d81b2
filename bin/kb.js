#!/usr/bin/env -S node --min-semi-space-size=16
// kb runs from its TypeScript sources with no build step to remember: on first use (and
// after any edit) bin/bundle.js bundles them into node_modules/.cache/kb, which starts
// several times faster than loading each module through tsx. KB_FROM_SOURCE=1, or a
// folder kb cannot write to, runs the sources through tsx instead.
// The flag on the first line: V8's young generation starts at 1 MB and kb's start-up
// allocates ~15 MB, so a start paid about ten scavenges (~15 ms before the first card).
// Starting it at 16 MB costs none. It can only be set when Node starts, hence `env -S`.
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(`kb needs Node >= 22 (this is ${process.version}). Run: . scripts/node-env.sh\n`);
  process.exit(1);
}
// kb is an application, not a library under development: React runs its production build.
process.env.NODE_ENV ??= 'production';
// libuv's threads, which run file system calls, start on first use with this many. A scan
// that writes ids fsyncs thousands of temp files at once, each waiting on the disk rather
// than a core: 10,000 fsyncs took 1.7-2.0 s on the default 4 threads, 0.85-1.0 s on 16.
process.env.UV_THREADPOOL_SIZE ??= '16';
// V8's compile cache for kb's own start-up files (the bundle has a cache of its own).
module.enableCompileCache?.();

const { bundledEntry } = await import('./bundle.js');
const bundle = process.env.KB_FROM_SOURCE ? null : await bundledEntry();
if (bundle) {
  const { runBundle } = await import('./run-bundle.js');
  runBundle(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  // tsx would look for tsconfig.json in the working directory; kb's own holds its JSX setting.
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
  await import('../src/cli/main.ts');
}
