// What a lab run will do, decided before the engine is touched: the effective settings
// (lab file + --set), checked as a whole, and the sweep points to run.
import type { Lab } from './lab-file.ts';
import { applyOverrides, crossCheck, SettingError, type LabSettings, type SettingOverride } from './lab-settings.ts';

/** The effective settings of a lab under overrides, checked before anything runs. */
export function labSettings(lab: Lab, overrides: readonly SettingOverride[], options: { serverOwnsEngine?: boolean } = {}): LabSettings {
  const settings = applyOverrides(lab.settings, overrides);
  const points = lab.sweep ? lab.sweep.values.map((value) => applyOverrides(settings, [{ key: lab.sweep!.key, value }])) : [settings];
  const problems = [...new Set(points.flatMap((point) => crossCheck(point, options)))];
  if (problems.length > 0) throw new SettingError(problems.join('\n'));
  return settings;
}

export function selectPoints(lab: Lab, settings: LabSettings, only: readonly string[] | undefined): Array<{ label: string | null; settings: LabSettings }> {
  if (!lab.sweep) {
    if (only && only.length > 0) throw new SettingError(`--points: ${lab.name} is a single run, not a sweep`);
    return [{ label: null, settings }];
  }
  const sweep = lab.sweep;
  const unknown = (only ?? []).filter((label) => !sweep.labels.includes(label));
  if (unknown.length > 0) throw new SettingError(`--points: no point ${unknown.join(', ')} in ${lab.name}; points: ${sweep.labels.join(', ')}`);
  return sweep.values
    .map((value, i) => ({ label: sweep.labels[i], settings: applyOverrides(settings, [{ key: sweep.key, value }]) }))
    .filter((point) => !only || only.length === 0 || only.includes(point.label));
}

