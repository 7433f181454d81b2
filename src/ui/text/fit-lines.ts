// Printed reports (a lab run, its history, a scan's summary) are built as lines of any length.
// On the way out each line wider than the terminal is wrapped under its own label ("Steps: ")
// or indent, between its fields where it has them (two or more spaces apart), so no line runs
// past the edge and a figure stays beside its name. A line with colour codes is left whole.
import stringWidth from 'string-width';
import { underLabel, wrapHanging } from './line-wrap.ts';
import { packParts } from './pack-parts.ts';

/**
 * A short label that starts a line: "Backend: ", "  Queue wait p50/p95/p99: ", "TTFT (ms): ".
 * A bracket it opens it closes: "Runs of lab x (Load sweep: TTFT p95 ..." is a sentence, not a label.
 */
const LABEL = /^\s*[A-Za-z](?:[\w />,-]|\([\w /,-]*\)){0,40}: /;
/** A lab expectation's mark ("  ✓ ", "  ✗ ", "  ? "): its sentence wraps under its first word, not under the mark. (Escapes: the bundle stays ASCII.) */
const MARK = /^\s*[\u2713\u2717?] /;
const FIELD_GAP = / {2,}/;
const SEPARATOR = ' \u00b7 ';

/** `text` with every line wider than `width` cells wrapped under its label or indent. */
export function fitLines(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (stringWidth(line) <= width || line.includes('\u001b')) return [line];
      const lead = LABEL.exec(line)?.[0] ?? MARK.exec(line)?.[0] ?? /^\s*/.exec(line)![0];
      const rest = line.slice(lead.length);
      // Parts joined by " · " (a history's figures, a report's commands) break between parts,
      // the separator left out at the break: a line no longer starts or ends with a lone "·".
      if (!FIELD_GAP.test(rest) && rest.includes(SEPARATOR)) {
        const hang = ' '.repeat(stringWidth(lead));
        return packParts(rest.split(SEPARATOR), SEPARATOR, width - hang.length).map((row, i) => (i === 0 ? lead : hang) + row);
      }
      if (!FIELD_GAP.test(rest)) return wrapHanging(lead, rest, width);
      const fields = rest.split(FIELD_GAP);
      const hang = ' '.repeat(stringWidth(lead));
      // As wrapHanging does: where a field is wider than the column beside its label, the fields start on the next line.
      if (lead.trim() !== '' && Math.max(...fields.map((field) => stringWidth(field))) > width - hang.length) {
        return underLabel(lead, width, (room) => packParts(fields, '  ', room));
      }
      return packParts(fields, '  ', width - hang.length).map((row, i) => (i === 0 ? lead : hang) + row);
    })
    .join('\n');
}
