// Printed reports (a lab run, its history, a scan's summary) are built as lines of any length.
// On the way out each line wider than the terminal is wrapped under its own label ("Steps: ")
// or indent, between its fields where it has them (two or more spaces apart), so no line runs
// past the edge and a figure stays beside its name. A line painted whole in one colour (a lab
// expectation on a terminal) wraps as the plain line, each row painted; any other line with
// colour codes is left whole. A
// path (`frontmatter updated: notes/推理 优化/预填 阶段.md`) is kept whole where it fits the line,
// under its label if need be; with `wholePaths` (printed output, on a terminal or a pipe)
// always, one wider than the line running past it, on a line of its own: a terminal's own wrap
// keeps it one to copy, and a pipe's reader gets it whole.
import stringWidth from 'string-width';
import { underLabel, wrapHanging, type WrapOptions } from './line-wrap.ts';
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

/** An indent, then one colour around the rest of the line: `  \x1b[32m✓ check\x1b[39m`. */
const PAINTED_WHOLE = /^(\s*)(\u001b\[[0-9;]*m)([^\u001b]*)(\u001b\[[0-9;]*m)$/;

/** `text` with every line wider than `width` cells wrapped under its label or indent. */
export function fitLines(text: string, width: number, options: WrapOptions = {}): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (stringWidth(line) <= width) return [line];
      // A painted expectation was left whole here, and an 80-column terminal then cut it
      // mid-word ("(exponent at least 1.0" / "5)"): wrap its text, paint each row's text.
      const painted = PAINTED_WHOLE.exec(line);
      if (painted) {
        const [, indent, open, body, close] = painted;
        return fitLines(indent + body, width, options)
          .split('\n')
          .map((row) => row.replace(/^(\s*)(.*)$/, (_, lead: string, rest: string) => `${lead}${open}${rest}${close}`));
      }
      if (line.includes('\u001b')) return [line];
      const lead = LABEL.exec(line)?.[0] ?? MARK.exec(line)?.[0] ?? /^\s*/.exec(line)![0];
      const rest = line.slice(lead.length);
      const fielded = FIELD_GAP.test(rest);
      if (!fielded && !rest.includes(SEPARATOR)) return wrapHanging(lead, rest, width, options);
      // Fields two or more spaces apart, or parts joined by " · " (a history's figures, a
      // report's commands): the line breaks between them, a separator left out at the break.
      const [parts, separator] = fielded ? [rest.split(FIELD_GAP), '  '] : [rest.split(SEPARATOR), SEPARATOR];
      const hang = ' '.repeat(stringWidth(lead));
      // As wrapHanging does: where a field is wider than the column beside its label, the fields start on the next line.
      if (fielded && lead.trim() !== '' && Math.max(...parts.map((field) => stringWidth(field))) > width - hang.length) {
        return underLabel(lead, width, (room) => packParts(parts, separator, room, options));
      }
      return packParts(parts, separator, width - hang.length, options).map((row, i) => (i === 0 ? lead : hang) + row);
    })
    .join('\n');
}
