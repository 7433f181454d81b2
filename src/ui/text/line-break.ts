// Where a line of text may break: the Unicode line breaking algorithm (UAX #14, through the
// `linebreak` package), so Chinese breaks between characters and English at spaces and after
// hyphens; plus kb's own rule that a number and its unit stay together (`2 TB/s`, `20 ms`,
// `20 毫秒`), as a reader of figures expects.
import { createRequire } from 'node:module';

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
const ASCII_UNIT = String.raw`(?:[kKMGTP]i?B(?:\/s)?|B\/s|Gbps|Mbps|bits?|bytes?|[m\u00b5\u03bcun]?s|min|h|[kMG]?Hz|[GTP]?FLOPS?(?:\/s)?|tok(?:en)?s?\/s|tokens?|req(?:uest)?s?\/s|requests?|steps?|blocks?|[kKM]|W|x|%)(?![A-Za-z0-9])`;
const CJK_UNIT = String.raw`(?:\u6beb\u79d2|\u5fae\u79d2|\u7eb3\u79d2|\u79d2|\u5206\u949f|\u5c0f\u65f6|\u500d|\u4e2a|\u6b21|\u5b57\u8282|\u6761|\u5757|\u6b65|\uff05|\u00d7)`;
const NUMBER_WITH_UNIT = new RegExp(String.raw`\d(?:[\d.,]*\d)?[ \u00a0]?(?:${ASCII_UNIT}|${CJK_UNIT})`, 'gu');

// A command-line option (`--name`, `--max-new-tokens`, `-h`): UAX #14 breaks after a hyphen,
// which would leave `--` at a line's end and the name on the next.
const OPTION = /(?<![\w-])--?[A-Za-z][\w-]*/g;

/** Ranges [start, end) of `text` no line may break inside: a number and its unit, an option's name. */
export function unbreakableRanges(text: string): Array<[number, number]> {
  const ranges = [...text.matchAll(NUMBER_WITH_UNIT), ...text.matchAll(OPTION)]
    .map((match): [number, number] => [match.index, match.index + match[0].length])
    .sort((a, b) => a[0] - b[0]);
  // In order and apart, as breakOpportunities walks them.
  const merged: Array<[number, number]> = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range[0] < last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push(range);
  }
  return merged;
}

/** Every place a line of `text` may end, in order; the last is the end of the text. */
export function breakOpportunities(text: string): BreakOpportunity[] {
  const kept = unbreakableRanges(text);
  const breaker = new (lineBreaker())(text);
  const out: BreakOpportunity[] = [];
  let inside = 0;
  for (let next = breaker.nextBreak(); next; next = breaker.nextBreak()) {
    while (inside < kept.length && kept[inside][1] <= next.position) inside++;
    const glued = !next.required && inside < kept.length && kept[inside][0] < next.position && next.position < kept[inside][1];
    if (!glued) out.push({ position: next.position, required: next.required });
  }
  return out;
}
