// Where a scan's worker threads get their code. Run from kb's start-up bundle (bin/bundle.js),
// they start from bundles of their own built beside it: ~0.1 s to start, where loading their
// TypeScript sources through tsx took ~0.25 s and ~0.35 CPU-seconds each, on the cores the
// scan is parsing with. Run from source (tsx, vitest), they load the sources through tsx.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type WorkerName = 'scan-worker' | 'swap-worker';

/**
 * The script and Node flags for worker `name`, whose source is `source` (its URL, beside the
 * caller). The bundle's folder is defined by bin/bundle.js in the bundles it builds (undefined
 * from source); a kb that outlived its bundle (pruned after newer sources were built) loads the
 * sources.
 */
export function workerScript(name: WorkerName, source: URL): { script: string | URL; execArgv: string[] } {
  const bundleDir = (globalThis as { kbBundleDir?: string }).kbBundleDir;
  const bundled = bundleDir === undefined ? null : join(bundleDir, `${name}.cjs`);
  if (bundled !== null && existsSync(bundled)) return { script: bundled, execArgv: [] };
  return { script: source, execArgv: tsxExecArgv() };
}

/** Node's flags for a worker run from source: tsx's loader, to read TypeScript. */
function tsxExecArgv(): string[] {
  try {
    return ['--import', import.meta.resolve('tsx/esm')];
  } catch {
    return [];
  }
}
