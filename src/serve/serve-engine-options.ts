// kb serve's flags -> the engine's options. `--set engine.KEY=V` takes the labs' engine keys,
// checked by the same registry (so a bad key or value is refused before anything allocates).
import type { EngineOptions } from '../engine/index.ts';
import { benchmarkOptions } from '../lab/engine-bridge.ts';
import { applyOverrides, defaultSettings, kvBudgetBlocks, parseOverrides, SettingError, type LabSettings } from '../lab/lab-settings.ts';

export interface ServeEngineFlags {
  model: string | undefined;
  weightsDir: string | undefined;
  backend: string;
  set: readonly string[];
}

export function serveEngineOptions(flags: ServeEngineFlags): EngineOptions {
  if (flags.model !== undefined && flags.weightsDir !== undefined) throw new SettingError('give --model or --weights, not both');
  const isEngineKey = (key: string) => key.startsWith('engine.');
  for (const arg of flags.set) {
    const key = arg.split('=')[0].trim();
    if (arg.includes('=') && !isEngineKey(key)) throw new SettingError(`--set ${key}: kb serve takes engine.* keys only (${notAnEngineKey(key)})`);
  }
  const overrides = parseOverrides(flags.set, isEngineKey);
  const base = applyOverrides(defaultSettings, [...flagOverride('model', flags.model, '--model'), ...flagOverride('backend', flags.backend, '--backend')]);
  if (base.backend === 'sim') throw new SettingError('--backend sim runs on a virtual clock and cannot serve real time; use cpu, webgpu or auto');
  const settings: LabSettings = applyOverrides(base, overrides);
  // Refused in the flag's words: the engine's own "a KV budget of 10486 bytes holds no block of
  // 65536 bytes" named no setting.
  const budget = kvBudgetBlocks(settings);
  if (budget && budget.blocks < 1) {
    throw new SettingError(
      `--set engine.kvBudgetMB=${settings.engine.kvBudgetMB}: holds no KV block (a block of ${settings.engine.blockSize} tokens of ${settings.model} takes ${(budget.blockBytes / (1024 * 1024)).toPrecision(3)} MiB)`,
    );
  }
  const { engine } = benchmarkOptions(settings);
  return { ...engine, ...(flags.weightsDir !== undefined ? { weightsDir: flags.weightsDir } : {}) };
}

/** What to use instead of --set KEY for a key that is not the engine's. */
function notAnEngineKey(key: string): string {
  if (key === 'model' || key === 'backend') return `use --${key}`;
  if (key === 'profile' || key === 'device') return `${key} is a lab's setting`;
  return 'the clients choose the workload';
}

/** A flag's value as the setting it stands for, refused in the flag's own name ("--model gpt3: ..."). */
function flagOverride(key: string, value: string | undefined, flag: string) {
  if (value === undefined) return [];
  try {
    return parseOverrides([`${key}=${value}`]);
  } catch (error) {
    throw new SettingError(`${flag} ${value}: ${(error as Error).message.replace(`--set ${key}=${value}: ${key} `, '')}`);
  }
}

/**
 * kb serve's cpu engine threads when --threads is not given: all cores but one in eight, left
 * to the HTTP thread, V8's helper threads and the OS (vLLM's CPU backend reserves cores for its
 * API server likewise). The engine's threads meet at a barrier after every op, so a core taken
 * from one of them stalls them all; on 16 cores kb serve's steps ran 25-30% slower with 16
 * engine threads than in-process (bench/serve). Below 8 cores none is left out: the engine
 * would lose more than the HTTP side gains (2 cores: 0.55-0.63x with one engine thread against
 * 0.72-0.73x with two). With --api-server-count n above 1, n cores at least are left.
 */
export function defaultServeThreads(cores: number, apiServers: number = 1): number {
  // Several API server threads each get a core of their own (vLLM's API server processes likewise).
  const reserved = apiServers > 1 ? Math.max(Math.floor(cores / 8), apiServers) : Math.floor(cores / 8);
  return Math.max(1, cores - reserved);
}

/**
 * kb serve's API server threads when --api-server-count is not given. With the engine on a GPU
 * the cores are free, and one HTTP thread is what holds a burst back: on an H100 (bench/serve,
 * ttft-breakdown's burst of 256, medians of 7 runs) one thread reached 0.40-0.45x the
 * in-process engine's throughput with 22-28 ms more TTFT p50, four 0.74-0.91x with 0.4-2.5 ms,
 * eight no better. So one thread per four cores, up to four. On the cpu backend the engine's
 * threads need the cores: one.
 */
export function defaultApiServers(backend: string, cores: number): number {
  return backend === 'webgpu' ? Math.max(1, Math.min(4, Math.floor(cores / 4))) : 1;
}
