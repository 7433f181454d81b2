// How `kb --help` and every command's help lay out their lists of options and commands.
// Commander aligns each description in a column after the longest term and wraps it there, but
// where that leaves under 40 columns (kb's command list at 80: terms up to 44 wide) it stops
// wrapping, and every description ran on past the terminal's edge. There each description goes
// under its term instead, wrapped to the whole width, as GNU tools lay out long options.
import { Help } from 'commander';
import { terminalColumns } from './terminal-output.ts';

const DESCRIPTION_INDENT = '      ';

/** East Asian wide and fullwidth characters (CJK, Hangul, kana, fullwidth forms): two columns each. */
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/g;

export const helpLayout: Partial<Help> = {
  // Commander counts characters; kb's help names Chinese topics, two columns a character.
  displayWidth(this: Help, text: string): number {
    return Help.prototype.displayWidth.call(this, text) + (text.match(WIDE)?.length ?? 0);
  },
  formatItem(this: Help, term: string, termWidth: number, description: string, helper: Help): string {
    const width = this.helpWidth ?? 80;
    const besideTerm = width - termWidth - 4;
    if (!description || besideTerm >= this.minWidthToWrap || helper.preformatted(description)) {
      return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    }
    const lines = helper.boxWrap(description, width - DESCRIPTION_INDENT.length).split('\n');
    return [`  ${term}`, ...lines.map((line) => DESCRIPTION_INDENT + line)].join('\n');
  },
};

/** The widest a help text's paragraphs run, on a wide terminal as when piped: a readable measure. */
const HELP_TEXT_WIDTH = 80;

/** What addHelpText passes a text function. */
interface HelpTextContext {
  error: boolean;
}

/** The width of where help goes (terminalColumns), HELP_TEXT_WIDTH at most. */
function helpWidthFor({ error }: HelpTextContext): number {
  return Math.min(HELP_TEXT_WIDTH, terminalColumns(error ? process.stderr : process.stdout) ?? HELP_TEXT_WIDTH);
}

/** A help text for addHelpText: a title, then terms with their descriptions laid out as commander lays out options. */
export function helpTable(title: string, rows: ReadonlyArray<{ term: string; description: string }>): (context: HelpTextContext) => string {
  return (context) => {
    const help = Object.assign(new Help(), helpLayout);
    help.helpWidth = helpWidthFor(context);
    const termWidth = Math.max(...rows.map((row) => row.term.length));
    return [`\n${title}`, ...rows.map((row) => help.formatItem(row.term, termWidth, row.description, help))].join('\n');
  };
}

/**
 * A help text for addHelpText, laid out to the terminal (80 columns at most) when shown.
 * Commander prints such text as written; kb's are written as paragraphs, so they are reflowed:
 * a line that follows a blank line or the end of a sentence starts a new paragraph (the text's
 * own breaks between topics are kept); indented lines (examples, lists) are kept as they are.
 * A number is never parted from its unit (2.4 GB, 60 s).
 */
export function helpText(text: string): (context: HelpTextContext) => string {
  return (context) => reflowHelp(text, helpWidthFor(context));
}

const ENDS_SENTENCE = /[.!?]\)?$/;
/** Stands for the space between a number and its unit while a paragraph is wrapped: not whitespace to commander's wrap. */
const GLUE = '\ue000';
/**
 * A number and the unit after it: a word (GB, s, %, days, columns) with its punctuation, 10
 * characters at most. A longer one is no unit: "1-4 Again/Hard/Good/Easy" kept whole broke kb
 * review's Keys line at 60 columns.
 */
const NUMBER_UNIT = /(\d) (?=[A-Za-z%\u00b5]\S{0,9}(?:\s|$))/g;

/** `text` with each paragraph (see helpText) wrapped to `width` columns at spaces. */
export function reflowHelp(text: string, width: number): string {
  const help = Object.assign(new Help(), helpLayout);
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) out.push(help.boxWrap(paragraph.join(' ').replace(NUMBER_UNIT, `$1${GLUE}`), width).replaceAll(GLUE, ' '));
    paragraph = [];
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '' || /^\s/.test(line)) {
      flush();
      out.push(line);
      continue;
    }
    if (paragraph.length > 0 && ENDS_SENTENCE.test(paragraph[paragraph.length - 1])) flush();
    paragraph.push(line.trim());
  }
  flush();
  return out.join('\n');
}
