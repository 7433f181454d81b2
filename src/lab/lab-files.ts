// Finding lab files in a knowledge base: lab/<name>.md, nothing outside that folder.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { LabFileError, labNamePattern, parseLab, type Lab } from './lab-file.ts';

export const labFolderName = 'lab';
/** Lab files bigger than this are not lab files. */
const maxLabFileBytes = 256 * 1024;
/** Words `kb lab` uses as subcommands; a lab cannot be called that. */
export const reservedLabNames = ['list', 'show', 'history', 'compare'];

export class LabNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabNotFoundError';
  }
}

/** The names of the labs in <root>/lab, sorted (files only; the name must be a plain slug). */
export function labNames(root: string): string[] {
  const dir = join(root, labFolderName);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.name.endsWith('.md'))
    .map((entry) => entry.name.slice(0, -3))
    .filter((name) => labNamePattern.test(name) && !reservedLabNames.includes(name))
    .sort();
}

/** Reads and parses lab/<name>.md; refuses names that are not plain slugs and files that resolve outside lab/. */
export function loadLab(root: string, name: string): Lab {
  if (!labNamePattern.test(name)) {
    throw new LabNotFoundError(`"${name}" is not a lab name (lowercase letters, digits and dashes; see kb lab list)`);
  }
  const dir = join(root, labFolderName);
  const path = join(dir, `${name}.md`);
  const file = `${labFolderName}/${name}.md`;
  if (!existsSync(path)) {
    const known = labNames(root);
    throw new LabNotFoundError(`no lab "${name}" (${file} does not exist); labs: ${known.length > 0 ? known.join(', ') : 'none'}`);
  }
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

/** Every lab in the knowledge base; a broken file is listed with its error, the rest go on. */
export function listLabs(root: string): LabListing[] {
  return labNames(root).map((name) => {
    try {
      return { name, lab: loadLab(root, name), error: null };
    } catch (error) {
      if (error instanceof LabFileError || error instanceof LabNotFoundError) return { name, lab: null, error: error.message };
      throw error;
    }
  });
}
