// What a calc card says about its lab-sourced figures (pure: the figures are resolved by
// calc-figures.ts before the card is asked).
import type { CalcSpec } from './types.ts';

/** The lines a card shows about its lab figures: where each came from, and runs that did not reproduce. */
export function figureNotes(spec: CalcSpec): { sources: string[]; notReproduced: string[] } {
  const sources: string[] = [];
  const notReproduced = new Set<string>();
  for (const v of spec.vars) {
    if (v.kind !== 'lab' || !v.figure) continue;
    sources.push(`${v.name}: ${v.figure.source}`);
    if (v.figure.notReproduced) notReproduced.add(v.figure.notReproduced);
  }
  return { sources, notReproduced: [...notReproduced] };
}
