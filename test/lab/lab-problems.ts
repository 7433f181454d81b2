// The problems parseLab reports for a lab file's text (tests assert on them).
import { LabFileError, parseLab } from '../../src/lab/lab-file.ts';

export function problemsOf(text: string): string[] {
  try {
    parseLab(text, 'x');
  } catch (error) {
    if (error instanceof LabFileError) return error.problems;
    throw error;
  }
  throw new Error('expected a LabFileError');
}
