// Lab names and the folders lab files live in, without reading a lab file: kb scan checks
// every card's lab link against these on each launch, and parsing a lab (yaml, zod) is not
// needed for that.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const labFolderName = 'lab';
export const labNamePattern = /^[a-z0-9][a-z0-9-]*$/;
/** Words `kb lab` uses as subcommands; a lab cannot be called that. */
export const reservedLabNames = ['list', 'show', 'history', 'compare'];

/**
 * Labs are looked up in the lab/ folder of each root in turn: the knowledge base's own, then
 * kb's bundled labs (kb/location.ts labRoots). A name found in an earlier root hides a later one.
 */
export type LabRoots = readonly string[];

/** The names of the labs in the roots' lab/ folders, sorted (files only; the name must be a plain slug). */
export function labNames(roots: LabRoots): string[] {
  const names = new Set<string>();
  for (const root of roots) {
    const dir = join(root, labFolderName);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const name = entry.name.slice(0, -3);
      if (entry.name.endsWith('.md') && labNamePattern.test(name) && !reservedLabNames.includes(name)) names.add(name);
    }
  }
  return [...names].sort();
}

