// Reading lab files: lab/<name>.md from the first root that has it, nothing outside that folder.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { LabFileError, parseLab, type Lab } from './lab-file.ts';
import { labFolderName, labNamePattern, labNames, type LabRoots } from './lab-names.ts';

/** Lab files bigger than this are not lab files. */
const maxLabFileBytes = 256 * 1024;

export class LabNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabNotFoundError';
  }
}

/**
 * Reads and parses lab/<name>.md from the first root that has it; refuses names that are not
 * plain slugs and files that resolve outside their lab/ folder. A lab from a later root (kb's
 * bundled labs) is named by its full path, so its reports say where it came from.
 */
export function loadLab(roots: LabRoots, name: string): Lab {
  if (!labNamePattern.test(name)) {
    throw new LabNotFoundError(`"${name}" is not a lab name (lowercase letters, digits and dashes; see kb lab list)`);
  }
  const own = `${labFolderName}/${name}.md`;
  const root = roots.find((candidate) => existsSync(join(candidate, labFolderName, `${name}.md`)));
  if (root === undefined) {
    const known = labNames(roots);
    throw new LabNotFoundError(`no lab "${name}" (${own} does not exist); labs: ${known.length > 0 ? known.join(', ') : 'none'}`);
  }
  const dir = join(root, labFolderName);
  const path = join(dir, `${name}.md`);
  const file = root === roots[0] ? own : path;
  const real = realpathSync(path);
  const inside = relative(realpathSync(dir), real);
  if (inside.startsWith('..') || inside.includes(`..${sep}`) || inside.startsWith(sep)) {
    throw new LabNotFoundError(`${file} leads outside the lab folder; refused`);
  }
  const size = statSync(real).size;
  if (size > maxLabFileBytes) throw new LabFileError([`${file}: ${size} bytes is too big for a lab file (at most ${maxLabFileBytes})`]);
  return parseLab(readFileSync(real, 'utf8'), name, file);
}

export type LabListing = { name: string; lab: Lab; error: null } | { name: string; lab: null; error: string };

/** Every lab the roots hold; a broken file is listed with its error, the rest go on. */
export function listLabs(roots: LabRoots): LabListing[] {
  return labNames(roots).map((name) => {
    try {
      return { name, lab: loadLab(roots, name), error: null };
    } catch (error) {
      if (error instanceof LabFileError || error instanceof LabNotFoundError) return { name, lab: null, error: error.message };
      throw error;
    }
  });
}
