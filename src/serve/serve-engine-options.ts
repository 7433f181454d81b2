// kb serve's flags -> the engine's options. `--set engine.KEY=V` takes the labs' engine keys,
// checked by the same registry (so a bad key or value is refused before anything allocates).
import type { EngineOptions } from '../engine/index.ts';
import { benchmarkOptions } from '../lab/engine-bridge.ts';
import { applyOverrides, defaultSettings, parseOverrides, SettingError, type LabSettings } from '../lab/lab-settings.ts';

export interface ServeEngineFlags {
  model: string | undefined;
  weightsDir: string | undefined;
  backend: string;
  set: readonly string[];
}

export function serveEngineOptions(flags: ServeEngineFlags): EngineOptions {
  if (flags.model !== undefined && flags.weightsDir !== undefined) throw new SettingError('give --model or --weights, not both');
  const overrides = parseOverrides(flags.set);
  const notEngine = overrides.find((o) => !o.key.startsWith('engine.'));
  if (notEngine) throw new SettingError(`--set ${notEngine.key}: kb serve takes engine.* keys only (the clients choose the workload)`);
  const base = applyOverrides(defaultSettings, [
    ...(flags.model !== undefined ? parseOverrides([`model=${flags.model}`]) : []),
    ...parseOverrides([`backend=${flags.backend}`]),
  ]);
  if (base.backend === 'sim') throw new SettingError('--backend sim runs on a virtual clock and cannot serve real time; use cpu, webgpu or auto');
  const settings: LabSettings = applyOverrides(base, overrides);
  const { engine } = benchmarkOptions(settings);
  return { ...engine, ...(flags.weightsDir !== undefined ? { weightsDir: flags.weightsDir } : {}) };
}
