// What the lab subcommands share: the lab layer's own errors shown as one-line user errors,
// and the --kb option wherever it was typed.
import type { Command } from 'commander';
import { UserError } from '../errors.ts';

/** The lab layer's own errors (bad settings, bad or missing lab files) are the user's to fix. */
export const userErrorNames = new Set(['SettingError', 'LabFileError', 'LabNotFoundError', 'ProfileError']);

export function asUserError(error: unknown): never {
  if (error instanceof Error && userErrorNames.has(error.name)) throw new UserError(error.message);
  throw error;
}

/** loadLab (imported lazily by the caller), with a bad or missing lab file as a one-line error. */
export function loadLabOrExplain<Lab>(loadLab: (roots: readonly string[], name: string) => Lab, roots: readonly string[], name: string): Lab {
  try {
    return loadLab(roots, name);
  } catch (error) {
    return asUserError(error);
  }
}

export function kbOption(command: Command): string | undefined {
  return command.optsWithGlobals().kb as string | undefined;
}
