// node-llama-cpp, installed on demand into this folder (never a dependency of kb: its optional
// binaries weigh ~700 MB) and started on its prebuilt CPU binary only. It never builds
// llama.cpp from source and never downloads a release from GitHub: where the prebuilt
// binary cannot load, the caller gets the reason instead of a module.
//
// Only the few calls the benchmark makes are typed here, so kb's typecheck does not need the
// package installed.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const PEER_DIR = dirname(fileURLToPath(import.meta.url));
const ENTRY = join(PEER_DIR, 'node_modules', 'node-llama-cpp', 'dist', 'index.js');

export interface LlamaSequence {
  evaluate(tokens: number[], options?: { temperature?: number }): AsyncGenerator<number, void, void>;
  evaluateWithMetadata(
    tokens: number[],
    metadata: { probabilities: true },
    options?: { temperature?: number },
  ): AsyncGenerator<{ token: number; probabilities: Map<number, number> }, void, void>;
  clearHistory(): Promise<void>;
}

export interface LlamaContext {
  getSequence(): LlamaSequence;
  dispose(): Promise<void>;
}

export interface LlamaModel {
  createContext(options: {
    contextSize: number;
    batchSize: number;
    threads: number;
    sequences: number;
    experimentalKvCacheKeyType?: 'F32' | 'F16';
    experimentalKvCacheValueType?: 'F32' | 'F16';
  }): Promise<LlamaContext>;
  dispose(): Promise<void>;
}

export interface Llama {
  readonly buildType: 'localBuild' | 'prebuilt';
  readonly gpu: string | false;
  readonly cpuMathCores: number;
  readonly systemInfo: string;
  readonly llamaCppRelease: { repo: string; release: string };
  loadModel(options: { modelPath: string; gpuLayers: number; useMmap?: boolean }): Promise<LlamaModel>;
  dispose(): Promise<void>;
}

interface NodeLlamaCppModule {
  getLlama(options: Record<string, unknown>): Promise<Llama>;
  LlamaLogLevel: Record<string, string>;
}

/** kb keeps K and V in fp32; llama.cpp's default is F16, which would halve its KV traffic. */
export const F32_KV_CACHE = { experimentalKvCacheKeyType: 'F32', experimentalKvCacheValueType: 'F32' } as const;

export type Started = { ok: true; llama: Llama; version: string } | { ok: false; reason: string };

/**
 * `npm install` into this folder from its own package.json and package-lock.json when the
 * package is missing. NODE_LLAMA_CPP_SKIP_DOWNLOAD keeps the package's postinstall (where npm
 * runs it) from fetching or compiling llama.cpp.
 */
export function ensureInstalled(log: (line: string) => void): string | null {
  if (existsSync(ENTRY)) return null;
  log(`installing node-llama-cpp into ${PEER_DIR} (once; prebuilt binaries from npm, ~700 MB)...`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['install', '--prefix', PEER_DIR, '--no-audit', '--no-fund'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true' },
  });
  if (result.error) return `npm install failed to start: ${result.error.message}`;
  if (result.status !== 0) return `npm install --prefix ${PEER_DIR} exited with ${result.status}`;
  if (!existsSync(ENTRY)) return `npm install finished but ${ENTRY} is missing`;
  return null;
}

/** Loads llama.cpp's prebuilt CPU binary with at most `threads` threads. */
export async function startLlama(threads: number, log: (line: string) => void): Promise<Started> {
  const installProblem = ensureInstalled(log);
  if (installProblem) return { ok: false, reason: installProblem };
  let module: NodeLlamaCppModule;
  try {
    module = (await import(pathToFileURL(ENTRY).href)) as NodeLlamaCppModule;
  } catch (error) {
    return { ok: false, reason: `node-llama-cpp did not import: ${(error as Error).message}` };
  }
  try {
    const llama = await module.getLlama({
      gpu: false,
      build: 'never',
      usePrebuiltBinaries: true,
      skipDownload: true,
      maxThreads: threads,
      progressLogs: false,
      logLevel: module.LlamaLogLevel.error,
    });
    if (llama.buildType !== 'prebuilt') {
      await llama.dispose();
      return { ok: false, reason: `node-llama-cpp loaded a ${llama.buildType} binary, not the prebuilt one` };
    }
    return { ok: true, llama, version: packageVersion() };
  } catch (error) {
    return { ok: false, reason: `no prebuilt llama.cpp CPU binary loads here: ${(error as Error).message.split('\n')[0]}` };
  }
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(PEER_DIR, 'node_modules', 'node-llama-cpp', 'package.json'), 'utf8')) as { version?: string };
  return manifest.version ?? 'unknown';
}
