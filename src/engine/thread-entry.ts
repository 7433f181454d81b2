// Where the engine's worker threads get their code. Run from kb's start-up bundle (bin/bundle.js
// builds them beside it), each starts from a bundle of its own: ~0.1 s, where registering tsx
// and loading its TypeScript sources took ~0.3 CPU-seconds a thread (the cpu backend starts
// one per core). Run from source, from the .js entry beside the sources, which registers tsx.
import { join } from 'node:path';

/** The bundle's folder, which bin/bundle.js defines in the bundles it builds; undefined from source. */
const bundleDir = (globalThis as { kbBundleDir?: string }).kbBundleDir;

/** The script a worker thread runs: bundle `name` beside kb's, else `source` (its .js entry). */
export function threadEntry(name: 'engine-worker' | 'cpu-worker', source: URL): string | URL {
  return bundleDir === undefined ? source : join(bundleDir, `${name}.cjs`);
}
