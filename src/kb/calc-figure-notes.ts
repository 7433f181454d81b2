// What a calc card says about its lab-sourced figures (pure: the figures are resolved by
// calc-figures.ts before the card is asked).
import type { CalcSpec } from '../model/knowledge-base.ts';

/** The lines a card shows about its lab figures: where each came from, and runs that did not reproduce. */
export function figureNotes(spec: CalcSpec): { sources: string[]; notReproduced: string[] } {
  // Variables with one source (two figures of the same run) share one line: "tps, bw: ...".
  const bySource = new Map<string, string[]>();
  const notReproduced = new Set<string>();
  for (const v of spec.vars) {
    if (v.kind !== 'lab' || !v.figure) continue;
    bySource.set(v.figure.source, [...(bySource.get(v.figure.source) ?? []), v.name]);
    if (v.figure.notReproduced) notReproduced.add(v.figure.notReproduced);
  }
  return { sources: [...bySource].map(([source, names]) => `${names.join(', ')}: ${source}`), notReproduced: [...notReproduced] };
}
