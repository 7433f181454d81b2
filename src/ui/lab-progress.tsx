// The progress of a running lab as an Ink line, for screens that run a lab in place
// (a card's lab from `kb review` or `kb quiz`). Same text as the plain-text bar.
import { Text, useStdout } from 'ink';
import { progressLine, type LabProgress } from '../lab/progress.ts';

export function LabProgressBar({ progress }: { progress: LabProgress | null }) {
  const { stdout } = useStdout();
  const width = Math.max(20, ((stdout as NodeJS.WriteStream | undefined)?.columns || 80) - 1);
  if (progress === null) return <Text dimColor>starting the engine…</Text>;
  return <Text>{progressLine(progress, width)}</Text>;
}
