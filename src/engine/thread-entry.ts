// Where the engine's worker threads get their code. Run from kb's start-up bundle (bin/bundle.js
// builds them beside it), each starts from a bundle of its own: ~0.1 s, where registering tsx
// and loading its TypeScript sources took ~0.3 CPU-seconds a thread (the cpu backend starts
// one per core). Run from source, from the .js entry beside the sources, which registers tsx.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The script a worker thread runs: bundle `name` beside kb's (bin/bundle.js defines their folder
 * in the bundles it builds), else `source` (its .js entry): from source, or in a kb that
 * outlived its bundle (pruned after newer sources were built).
 */
export function threadEntry(name: 'engine-worker' | 'cpu-worker' | 'api-server', source: URL): string | URL {
  const bundleDir = (globalThis as { kbBundleDir?: string }).kbBundleDir;
  const bundled = bundleDir === undefined ? null : join(bundleDir, `${name}.cjs`);
  return bundled !== null && existsSync(bundled) ? bundled : source;
}
