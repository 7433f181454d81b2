// Where a line of text may break: the Unicode line breaking algorithm (UAX #14, through the
// `linebreak` package), so Chinese breaks between characters and English at spaces and after
// hyphens; plus kb's own rules that a number and its unit stay together (`2 TB/s`, `-5 °C`,
// `20 毫秒`), as a reader of figures expects, words joined by a slash (`FLOP/B`), and a path
// or URL too, so it can be copied.
import { createRequire } from 'node:module';
import stringWidth from 'string-width';

export interface BreakOpportunity {
  /** A line may end just before this offset (UTF-16 units); a line's trailing spaces are dropped. */
  position: number;
  /** A hard break (a newline in the text). */
  required: boolean;
}

interface LineBreakerInstance {
  nextBreak(): BreakOpportunity | null;
}
type LineBreakerClass = new (text: string) => LineBreakerInstance;

let lineBreakerClass: LineBreakerClass | null = null;

/**
 * The package decompresses its Unicode table when it loads (a few ms), so it is loaded on the
 * first text that does not fit its line, not at start-up: most questions fit on one line. In
 * kb's bundle `require` is esbuild's own (the package is bundled and initialised here); run
 * from source (tsx, vitest) the module has no `require`, and Node's is made for it.
 */
function lineBreaker(): LineBreakerClass {
  lineBreakerClass ??= (typeof require === 'function' ? require('linebreak') : createRequire(import.meta.url)('linebreak')) as LineBreakerClass;
  return lineBreakerClass;
}

let preload: ReturnType<typeof setTimeout> | null = null;

/**
 * Loads the line breaker once the screen is idle (`delayMs` after its first card is drawn), so
 * the first answer too long for its line does not pay for the load when it is revealed.
 */
export function preloadLineBreaker(delayMs = 150): void {
  if (lineBreakerClass || preload) return;
  preload = setTimeout(() => lineBreaker(), delayMs);
  // A screen that closes before then does not wait for it.
  preload.unref?.();
}

// Units a figure is written with in kb's notes (English and Chinese: 毫秒 微秒 纳秒 秒 分钟 小时 倍
// 个 次 字节 条 块 步 ％ ×). Letters right after an ASCII unit make it another word ("20 msgs");
// a Chinese unit needs no such edge. Non-ASCII characters are written as escapes: kb's bundle
// stays ASCII (see bin/bundle.js), and esbuild cannot escape them inside String.raw.
const ASCII_UNIT = String.raw`(?:\u00b0[CF]|[kKMGTP]i?B(?:\/s)?|B\/s|Gbps|Mbps|bits?|bytes?|[m\u00b5\u03bcun]?s|min|h|[kMG]?Hz|[GTP]?FLOPS?(?:\/s)?|tok(?:en)?s?\/s|tokens?|req(?:uest)?s?\/s|requests?|steps?|blocks?|[kKM]|W|x|%)(?![A-Za-z0-9])`;
const CJK_UNIT = String.raw`(?:\u6beb\u79d2|\u5fae\u79d2|\u7eb3\u79d2|\u79d2|\u5206\u949f|\u5c0f\u65f6|\u500d|\u4e2a|\u6b21|\u5b57\u8282|\u6761|\u5757|\u6b65|\uff05|\u00d7)`;
// A number starts a word (or follows a Chinese character: `带宽3.35 TB/s`): the `95` of `p95 GiB`
// is no figure (p95 is), and it is not kept with `GiB`.
const NUMBER_WITH_UNIT = new RegExp(String.raw`(?<![A-Za-z0-9])\d(?:[\d.,]*\d)?[ \u00a0]?(?:${ASCII_UNIT}|${CJK_UNIT})`, 'gu');

// A command-line option (`--name`, `--max-new-tokens`, `-h`): UAX #14 breaks after a hyphen,
// which would leave `--` at a line's end and the name on the next.
const OPTION = /(?<![\w-])--?[A-Za-z][\w-]*/g;
// A kb command (`run kb lab load-sweep`, `kb lab ttft-breakdown --set device=cpu-gpt2-tiny`) and
// a setting given as key=value: UAX #14 breaks after a hyphen, which left `kb lab load-` at a
// line's end and `sweep` on the next, a command cut where it is copied to the shell. Each
// hyphenated word of the command (a lab, a model, a value) is kept whole where it fits a line;
// the command's spaces still break.
const KB_COMMAND = /(?<![\w-])kb(?: (?:--?[a-z][\w-]*|[a-z0-9][\w.=@-]*))+/g;
const HYPHENATED_WORD = /[\w.=@]*[a-z0-9]-[\w.=@-]*[\w@]/g;
const KEY_VALUE = /(?<![\w.-])[A-Za-z][\w.]*=[\w.@]+(?:-[\w.@]+)+/g;

/** The hyphenated words of kb commands, and key=value settings, as ranges [start, end). */
function commandWords(text: string): Array<[number, number]> {
  const words: Array<[number, number]> = [];
  for (const command of text.matchAll(KB_COMMAND)) {
    for (const word of command[0].matchAll(HYPHENATED_WORD)) words.push([command.index + word.index, command.index + word.index + word[0].length]);
  }
  for (const setting of text.matchAll(KEY_VALUE)) words.push([setting.index, setting.index + setting[0].length]);
  return words;
}
// A date with its time (`2026-11-26 12:26`, kb rate's due time; `11-26 12:26` in kb lab
// history): one moment, not two words.
const DATE_TIME = /\b(?:\d{4}-)?\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?\b/g;
// A file path or URL (`/tmp/kb-test-x/vault/kb.json`, `notes/a.md:3`, `http://127.0.0.1:8000/v1`,
// `notes/推理 优化/预填 阶段.md`): UAX #14 breaks after its hyphens and at its spaces, and a path
// cut in two cannot be copied from the terminal. A path starts at /, ~/ or ./, or ends in a
// file's extension: figures (`7.61/15.25`) and units (`ms/token`, `TB/s`) are not paths. Its
// names are of any script; one may hold single spaces where the path goes on past it: a folder
// before a slash, or a file name up to its extension (`阶段.md`). The first name holds none
// (`see notes/a.md` is no path `see notes/...`) unless the path is the text's start, ended by
// the text's end or `: ` as kb writes a file after a label (`frontmatter updated: Inference
// Notes/KV cache.md`, `warning: Inference Notes/KV.md:3: ...`).
const NAME = String.raw`[\p{L}\p{N}\p{M}_.\-]+`;
const NAMES = String.raw`${NAME}(?: ${NAME})*`;
const FILE_NAME = String.raw`(?:${NAME} )*[\p{L}\p{N}\p{M}_\-]+\.\p{L}[\p{L}\p{N}]*`;
const LINE_NUMBER = String.raw`(?::\d+)?`;
const PATH_OR_URL = new RegExp(
  String.raw`(?<![\p{L}\p{N}\p{M}_.~\/:-])(?:` +
    String.raw`[a-z][a-z+]*:\/\/[^\s]+` +
    String.raw`|(?:~|\.{1,2})?(?:\/${NAMES}(?=\/))*\/(?:${FILE_NAME}|${NAME})\/?${LINE_NUMBER}` +
    String.raw`|^${NAMES}(?:\/${NAMES})*\/${FILE_NAME}${LINE_NUMBER}(?=$|: )` +
    String.raw`|${NAME}(?:\/${NAMES})*\/${FILE_NAME}${LINE_NUMBER}` +
    ')',
  'gu',
);

// Words joined by a slash (`FLOP/B`, `p50/p99`, `GiB/序列`): UAX #14 breaks after a slash
// before a letter, which leaves `FLOP/` at a line's end and its `B` on the next. A Chinese word
// after the slash keeps its first character (Chinese breaks between any two).
const SLASHED_WORDS = /[A-Za-z0-9]+(?:\/(?:[A-Za-z0-9]+|\p{Script=Han}))+/gu;

/** The paths and URLs in `text`, as ranges [start, end). */
export function pathRanges(text: string): Array<[number, number]> {
  return [...text.matchAll(PATH_OR_URL)].map((match) => [match.index, match.index + match[0].length]);
}

/**
 * Ranges [start, end) of `text` no line may break inside: a number and its unit, an option's
 * name, a date with its time, words joined by a slash, a hyphenated word of a kb command or a
 * key=value and a path or URL where they fit `width` cells (a longer one breaks as UAX #14
 * says, after a hyphen or a slash, rather than anywhere),
 * or whatever its width with `wholePaths` (printed output, where it may run past the line).
 */
export function unbreakableRanges(text: string, width = Infinity, paths: readonly RegExpExecArray[] = [...text.matchAll(PATH_OR_URL)], wholePaths = false): Array<[number, number]> {
  const span = (match: RegExpExecArray): [number, number] => [match.index, match.index + match[0].length];
  const fits = ([start, end]: [number, number]) => width === Infinity || stringWidth(text.slice(start, end)) <= width;
  let merged = mergeRanges([
    ...[...text.matchAll(NUMBER_WITH_UNIT), ...text.matchAll(OPTION), ...text.matchAll(DATE_TIME)].map(span),
    ...commandWords(text).filter(fits),
    ...paths.map(span).filter((path) => wholePaths || fits(path)),
  ]);
  // Slashed words join only where the run of text they stand in (up to a space or a Chinese
  // character, where a line may break anyway) still fits a line: `1.02/1.02/1.02 ms/token`
  // wider than the line breaks after its last slash rather than inside a word.
  for (const slashed of [...text.matchAll(SLASHED_WORDS)].map(span)) {
    const joined = mergeRanges([...merged, slashed]);
    const [start, end] = joined.find(([from, to]) => from <= slashed[0] && slashed[1] <= to)!;
    if (fits(unbrokenRun(text, start, end, merged))) merged = joined;
  }
  return merged;
}

/**
 * [start, end) widened to the run of text around it that a line keeps whole: no space, no
 * Chinese character (UAX #14), and across the spaces of `kept` ranges it touches (`2 TB/s(x)a/b`
 * is one run: fitting only `(x)a/b` in a line, `a/b` was kept and then cut all the same).
 */
function unbrokenRun(text: string, start: number, end: number, kept: ReadonlyArray<readonly [number, number]>): [number, number] {
  const joins = (char: string | undefined) => char !== undefined && /[^\s\p{Script=Han}]/u.test(char);
  for (let widened = true; widened; ) {
    const [from, to] = [start, end];
    while (joins(text[start - 1])) start--;
    while (joins(text[end])) end++;
    for (const [keptStart, keptEnd] of kept) {
      if (keptStart < end && start < keptEnd) [start, end] = [Math.min(start, keptStart), Math.max(end, keptEnd)];
    }
    widened = start !== from || end !== to;
  }
  return [start, end];
}

/** Ranges sorted, overlapping ones merged: in order and apart, as breakOpportunities walks them. */
function mergeRanges(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const merged: Array<[number, number]> = [];
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = merged.at(-1);
    if (last && start < last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

// A wide opening bracket (`（`, `「`, `【`, `《`) right after a letter or digit of a narrow script:
// `KV cache（缓存）`. The `linebreak` package keeps an old LB30, (AL | HL | NU) × OP, which
// UAX #14 has since limited to brackets that are not East Asian wide; with it `cache（缓` was
// one piece, so a narrow table cell left `cache（` at a line's end, or cut the word to fit it.
const WIDE_OPENING_AFTER_WORD = /(?<=[\p{L}\p{N}])\p{Ps}/gu;

/** Offsets before a wide opening bracket that follows a narrow letter or digit: a line may break there (current UAX #14). */
function wideOpeningBreaks(text: string): number[] {
  const breaks: number[] = [];
  for (const match of text.matchAll(WIDE_OPENING_AFTER_WORD)) {
    const before = String.fromCodePoint(text.codePointAt(match.index - 1 - (/[\udc00-\udfff]/.test(text[match.index - 1]) ? 1 : 0))!);
    if (stringWidth(match[0]) === 2 && stringWidth(before) === 1) breaks.push(match.index);
  }
  return breaks;
}

/**
 * Every place a line of `text` (`width` cells wide) may end, in order; the last is the end of
 * the text. With `wholePaths`, none inside a path or URL, however wide.
 */
export function breakOpportunities(text: string, width = Infinity, wholePaths = false): BreakOpportunity[] {
  const paths = [...text.matchAll(PATH_OR_URL)];
  const kept = unbreakableRanges(text, width, paths, wholePaths);
  const outsideKept = (at: number) => !kept.some(([start, end]) => start < at && at < end);
  // UAX #14 never breaks before a slash, so `has /tmp/x` would take its word along: a path
  // after a space may start a line (not one inside a number and its unit: `2 TB/s`).
  const pathStarts = paths.map((match) => match.index).filter((at) => at > 0 && /\s/.test(text[at - 1]));
  // Breaks kb adds to the package's, in order: path starts and wide opening brackets.
  const added = [...new Set([...pathStarts, ...wideOpeningBreaks(text)])].filter(outsideKept).sort((a, b) => a - b);
  const breaker = new (lineBreaker())(text);
  const out: BreakOpportunity[] = [];
  let inside = 0;
  const push = (opportunity: BreakOpportunity) => {
    while (added.length > 0 && added[0] <= opportunity.position) {
      const at = added.shift()!;
      if (at < opportunity.position && at > (out.at(-1)?.position ?? 0)) out.push({ position: at, required: false });
    }
    out.push(opportunity);
  };
  for (let next = breaker.nextBreak(); next; next = breaker.nextBreak()) {
    while (inside < kept.length && kept[inside][1] <= next.position) inside++;
    const glued = !next.required && inside < kept.length && kept[inside][0] < next.position && next.position < kept[inside][1];
    if (!glued) push({ position: next.position, required: next.required });
  }
  return out;
}
