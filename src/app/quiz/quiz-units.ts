// What a learner types for a calc card: a number, optionally with a unit (`20ms`, `0.5 s`,
// `2.4 GB`, `1,024`, `1.5e3`, `50%`, `11.7x` for a ratio). The number is converted into the
// card's unit. A unit that cannot be converted is a message to the learner (type it again),
// never a wrong answer.
//
// Units that differ only by letter case never mean two amounts of one kind: each base takes
// either the prefixes below one (time: n, µ, m) or those above (k, M, G, T, P; Ki, Mi, Gi for
// sizes), never both, so `Ms` (which someone writing a TPOT means as ms, not megaseconds),
// `mtokens` or `mB` are refused with "did you mean ms?" rather than read 10^9 off. Chinese unit
// names (毫秒, 秒, 分钟, 字节, 个token, 倍) read as their ASCII units.
//
// Units as a learner writes them out read too (found by a learner, each asked again): the
// prefixes spelled out (milliseconds, microseconds, kilobytes, gigabytes: a word has no case
// slip to guard against, so any case), "per" for the slash (25 ms per token, tokens per
// second), t/s for tokens/s, and a leading ~ or ≈ (~3.4 ms: an estimate is still the number).

export type TypedAnswer =
  | { ok: true; value: number }
  | { ok: false; message: string };

/** A unit's meaning: what it measures and how many base units one of it is. */
interface UnitMeaning {
  dimension: string;
  factor: number;
  /** Whether it carries a prefix (ms, GB): a bare `2.4G` would then be ambiguous. */
  prefixed: boolean;
}

interface BaseUnit {
  names: readonly string[];
  /** Matched letter for letter (B is a byte, b is not; s is a second, S is not). */
  caseSensitive?: boolean;
  dimension: string;
  factor: number;
  /**
   * Which prefixes it takes: `small` (n, u, µ, m: a time), `large` (k, K, M, G, T, P: a count),
   * `large+binary` (also Ki, Mi, Gi, Ti, Pi: a size), or none. Never small and large both, so
   * m and M never both read on one base (ms vs Ms, mB vs MB).
   */
  prefixes: 'small' | 'large' | 'large+binary' | 'none';
}

const BASES: readonly BaseUnit[] = [
  { names: ['B'], caseSensitive: true, dimension: 'byte', factor: 1, prefixes: 'large+binary' },
  { names: ['byte', 'bytes'], dimension: 'byte', factor: 1, prefixes: 'large+binary' },
  { names: ['bit', 'bits'], dimension: 'byte', factor: 1 / 8, prefixes: 'large+binary' },
  // A time takes only prefixes below one: nobody means megaseconds (Ms, Msec), they mean ms.
  { names: ['s'], caseSensitive: true, dimension: 'second', factor: 1, prefixes: 'small' },
  { names: ['sec', 'secs', 'second', 'seconds'], dimension: 'second', factor: 1, prefixes: 'small' },
  { names: ['min', 'mins', 'minute', 'minutes'], dimension: 'second', factor: 60, prefixes: 'none' },
  { names: ['h', 'hr', 'hrs', 'hour', 'hours'], dimension: 'second', factor: 3600, prefixes: 'none' },
  { names: ['token', 'tokens', 'tok', 'toks'], dimension: 'token', factor: 1, prefixes: 'large' },
  { names: ['request', 'requests', 'req', 'reqs'], dimension: 'request', factor: 1, prefixes: 'large' },
  // FLOPS (capital S) is a rate and is handled before this table; FLOP, FLOPs, flops count work.
  { names: ['flop', 'flops'], dimension: 'flop', factor: 1, prefixes: 'large' },
  { names: ['sequence', 'sequences', 'seq', 'seqs'], dimension: 'sequence', factor: 1, prefixes: 'large' },
  { names: ['block', 'blocks'], dimension: 'block', factor: 1, prefixes: 'large' },
  { names: ['step', 'steps'], dimension: 'step', factor: 1, prefixes: 'large' },
  // A forward pass: speculative decoding asks how many tokens one target pass yields (2.43 tokens/pass).
  { names: ['pass', 'passes'], dimension: 'pass', factor: 1, prefixes: 'none' },
  { names: ['replica', 'replicas'], dimension: 'replica', factor: 1, prefixes: 'large' },
  { names: ['slot', 'slots'], dimension: 'slot', factor: 1, prefixes: 'large' },
  { names: ['gpu', 'gpus'], dimension: 'gpu', factor: 1, prefixes: 'large' },
  { names: ['param', 'params', 'parameter', 'parameters', 'weight', 'weights'], dimension: 'parameter', factor: 1, prefixes: 'large' },
  { names: ['%', 'percent'], dimension: 'percent', factor: 1, prefixes: 'none' },
  { names: ['x', '×', 'times'], dimension: 'times', factor: 1, prefixes: 'none' },
];

const SMALL_PREFIXES: ReadonlyArray<[string, number]> = [['n', 1e-9], ['u', 1e-6], ['µ', 1e-6], ['m', 1e-3]];
const LARGE_PREFIXES: ReadonlyArray<[string, number]> = [['k', 1e3], ['K', 1e3], ['M', 1e6], ['G', 1e9], ['T', 1e12], ['P', 1e15]];
const BINARY_PREFIXES: ReadonlyArray<[string, number]> = [
  ['Ki', 2 ** 10], ['Mi', 2 ** 20], ['Gi', 2 ** 30], ['Ti', 2 ** 40], ['Pi', 2 ** 50],
];
/**
 * Prefixes written out (milliseconds, kilobytes), matched in any case, each with the bases it
 * goes with as its symbol does: nobody writes kiloseconds or millitokens.
 */
const SPELLED_PREFIXES: ReadonlyArray<[string, number, ReadonlyArray<BaseUnit['prefixes']>]> = [
  ['nano', 1e-9, ['small']], ['micro', 1e-6, ['small']], ['milli', 1e-3, ['small']],
  ['kilo', 1e3, ['large', 'large+binary']], ['mega', 1e6, ['large', 'large+binary']], ['giga', 1e9, ['large', 'large+binary']],
  ['tera', 1e12, ['large', 'large+binary']], ['peta', 1e15, ['large', 'large+binary']],
  ['kibi', 2 ** 10, ['large+binary']], ['mebi', 2 ** 20, ['large+binary']], ['gibi', 2 ** 30, ['large+binary']],
  ['tebi', 2 ** 40, ['large+binary']], ['pebi', 2 ** 50, ['large+binary']],
];
/** A prefix typed alone after the number (`1.2k`) multiplies it. */
const BARE_MULTIPLIERS = new Map<string, number>([['k', 1e3], ['K', 1e3], ['M', 1e6], ['G', 1e9], ['T', 1e12]]);
/**
 * Cards of these kinds take no bare multiplier: a time takes no prefix above one (`25 M` on a
 * card in s is minutes or ms mistyped, not 25 million seconds), a percentage or ratio none.
 */
const NO_BARE_MULTIPLIER = new Set(['second', 'percent', 'times']);

/**
 * Chinese unit names, as kb's users write them in Chinese notes and type them with an input
 * method: each reads as the ASCII unit, alone or in a rate (毫秒/token, tokens/秒).
 */
const CHINESE_UNITS = new Map<string, string>([
  ['纳秒', 'ns'], ['微秒', 'µs'], ['毫秒', 'ms'], ['秒', 's'], ['秒钟', 's'],
  ['分钟', 'min'], ['分', 'min'], ['小时', 'h'], ['钟头', 'h'],
  ['字节', 'B'], ['比特', 'bit'],
  ['词元', 'token'], ['请求', 'request'], ['序列', 'sequence'], ['块', 'block'], ['步', 'step'],
  ['副本', 'replica'], ['槽位', 'slot'], ['参数', 'param'],
  ['倍', 'x'],
]);
/**
 * Chinese numerals after the digits scale the number, whatever the unit: 70亿 is 7 billion
 * (70亿参数, a 7B model), 1.2万 is 12,000, 3千 3,000. 兆 is left out: 10^6 in some places, 10^12 in
 * others. 万亿 (10^12) before 亿 and 万, so the longest is read.
 */
const CHINESE_NUMERALS: ReadonlyArray<[string, number]> = [['万亿', 1e12], ['亿', 1e8], ['万', 1e4], ['千', 1e3]];
/** A measure word before a count (25个token, 8张GPU, 100条请求, 2个小时) adds nothing to it. */
const CHINESE_CLASSIFIERS = ['个', '张', '条'];
const COUNTED = new Set(['token', 'request', 'sequence', 'block', 'step', 'replica', 'slot', 'gpu', 'parameter']);

const DIMENSION_NAMES: Record<string, string> = {
  byte: 'a size in bytes',
  second: 'a time',
  token: 'a number of tokens',
  request: 'a number of requests',
  flop: 'a number of FLOPs',
  percent: 'a percentage',
  times: 'a ratio (x)',
};

function findBase(text: string): BaseUnit | undefined {
  const lower = text.toLowerCase();
  return BASES.find((base) => (base.caseSensitive ? base.names.includes(text) : base.names.includes(lower)));
}

/** One unit without a slash: a base, or a prefix and a base (ms, GB, KiB, ktokens). */
function simpleUnit(text: string): UnitMeaning | null {
  if (text === 'FLOPS') return { dimension: 'flop/second', factor: 1, prefixed: false };
  const base = findBase(text);
  if (base) return { dimension: base.dimension, factor: base.factor, prefixed: false };
  if (text.endsWith('FLOPS')) {
    const prefix = LARGE_PREFIXES.find(([name]) => name === text.slice(0, -5));
    if (prefix) return { dimension: 'flop/second', factor: prefix[1], prefixed: true };
  }
  // TPS is tokens per second as serving dashboards and notes write it ("tokens/second (TPS)");
  // "800 TPS" on a card in tokens/s was "not a unit kb knows". Any case (tps, TPS), and only the
  // prefixes above one (kTPS), as tokens take.
  // QPS and RPS likewise for requests per second, as load tests and interviews say a request
  // rate: "1.6 QPS" on a card in req/s was "not a unit kb knows".
  const rate = /^(.*?)(tps|qps|rps)$/i.exec(text);
  if (rate) {
    const prefix = rate[1];
    const multiplier = prefix === '' ? 1 : LARGE_PREFIXES.find(([name]) => name === prefix)?.[1];
    const dimension = rate[2].toLowerCase() === 'tps' ? 'token/second' : 'request/second';
    if (multiplier !== undefined) return { dimension, factor: multiplier, prefixed: prefix !== '' };
  }
  // Binary prefixes first: Ki must not read as K + "iB".
  const groups: Array<[ReadonlyArray<[string, number]>, BaseUnit['prefixes'][]]> = [
    [BINARY_PREFIXES, ['large+binary']],
    [SMALL_PREFIXES, ['small']],
    [LARGE_PREFIXES, ['large', 'large+binary']],
  ];
  for (const [prefixes, takers] of groups) {
    for (const [prefix, multiplier] of prefixes) {
      if (!text.startsWith(prefix) || text.length === prefix.length) continue;
      const rest = findBase(text.slice(prefix.length));
      if (!rest || !takers.includes(rest.prefixes)) continue;
      return { dimension: rest.dimension, factor: rest.factor * multiplier, prefixed: true };
    }
  }
  const lower = text.toLowerCase();
  for (const [prefix, multiplier, takers] of SPELLED_PREFIXES) {
    if (!lower.startsWith(prefix) || text.length === prefix.length) continue;
    const rest = findBase(text.slice(prefix.length));
    if (rest && takers.includes(rest.prefixes)) return { dimension: rest.dimension, factor: rest.factor * multiplier, prefixed: true };
  }
  return null;
}

/**
 * t over a time is tokens (685.7 t/s, 1.2k t/s), as a rate is written in notes; t alone, or T/s
 * (tera of what?), stays unknown.
 */
function tokensAbbreviated(top: string, bottom: UnitMeaning): UnitMeaning | null {
  const short = /^(.?)t$/.exec(top);
  if (short === null || bottom.dimension !== 'second') return null;
  const multiplier = short[1] === '' ? 1 : LARGE_PREFIXES.find(([name]) => name === short[1])?.[1];
  return multiplier === undefined ? null : { dimension: 'token', factor: multiplier, prefixed: short[1] !== '' };
}

/** One side of a unit, a Chinese name read as its ASCII unit (毫秒 is ms, 个token is token). */
function fromChinese(part: string): string {
  const direct = CHINESE_UNITS.get(part);
  if (direct !== undefined) return direct;
  if (CHINESE_CLASSIFIERS.includes(part[0]) && part.length > 1) {
    const rest = CHINESE_UNITS.get(part.slice(1)) ?? part.slice(1);
    const base = findBase(rest);
    if ((base && COUNTED.has(base.dimension)) || rest === 'h') return rest;
  }
  return part;
}

function normalizeUnit(text: string): string {
  // "per" before a unit is the slash (ms per token, tokens per second; "per token" after a bare
  // number is "/token"), though "per cent" stays percent; Greek mu for micro; spaces inside a
  // unit ("tokens / s", "k tokens") carry no meaning.
  return text.replace(/(?:^|\s+)per\s+(?!cent$)/gi, '/').replace(/\s+/g, '').replaceAll('μ', 'µ').split('/').map(fromChinese).join('/');
}

/** A unit's meaning, or null when kb does not know it (then only the same text matches it). */
export function unitMeaning(unit: string): UnitMeaning | null {
  const text = normalizeUnit(unit);
  if (text === '') return null;
  const parts = text.split('/');
  if (parts.length === 1) return simpleUnit(text);
  if (parts.length !== 2) return null;
  const bottom = simpleUnit(parts[1]);
  const top = simpleUnit(parts[0]) ?? (bottom && tokensAbbreviated(parts[0], bottom));
  if (!top || !bottom) return null;
  return { dimension: `${top.dimension}/${bottom.dimension}`, factor: top.factor / bottom.factor, prefixed: top.prefixed || bottom.prefixed };
}

/** A unit kb does not know (int8, FLOP/byte stays known) matches only itself, case and plural aside. */
function literalMeaning(unit: string): UnitMeaning {
  return { dimension: `literal:${normalizeUnit(unit).toLowerCase().replace(/s$/, '')}`, factor: 1, prefixed: false };
}

function meaningOf(unit: string): UnitMeaning {
  return unitMeaning(unit) ?? literalMeaning(unit);
}

function describe(meaning: UnitMeaning): string {
  return DIMENSION_NAMES[meaning.dimension] ?? '';
}

// A number: digits with optional thousands commas (1,024) or underscores, a fraction, an
// exponent. Its sign may be the minus sign \u2212 − (an escape: the start-up bundle stays ASCII).
// Grouped thousands start with 1-9: "0,025" is a decimal comma (0.025), never 25, so it is
// refused with the reason rather than graded as 25 (a right 0,025 s was marked wrong).
const NUMBER = /^([+\-\u2212]?)((?:[1-9]\d{0,2}(?:,\d{3})+|\d+(?:_\d+)*)(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?/;

/** Counts a question's quantity can be "per": TPOT is ms per token, KV size KiB per token. */
const PER_ONE = new Set(['token', 'request', 'sequence', 'step', 'pass']);

/**
 * A typed unit that is the card's unit per one token (request, sequence, step, forward pass), read as the
 * card's unit: a TPOT card in ms takes "25 ms/token", as the question asks it. It was refused
 * ("ms/token does not convert to ms"), which told the learner their right unit was wrong.
 */
function perCount(typed: UnitMeaning | null, card: UnitMeaning): UnitMeaning | null {
  if (typed === null) return null;
  const slash = typed.dimension.lastIndexOf('/');
  if (slash < 0 || typed.dimension.slice(0, slash) !== card.dimension || !PER_ONE.has(typed.dimension.slice(slash + 1))) return null;
  return { ...typed, dimension: card.dimension };
}

function swapFirstCase(text: string): string {
  const first = text.charAt(0);
  const swapped = first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase();
  return swapped + text.slice(1);
}

/**
 * For a unit kb does not know, the units of the card's kind it differs from only by letter case
 * (Ms: ms; mtokens: Mtokens; Mb: MB or Mbit), as " (did you mean ms?)", else "".
 */
function hint(unit: string, card: UnitMeaning): string {
  const forms = [unit, unit.toLowerCase(), swapFirstCase(unit), swapFirstCase(unit.toLowerCase()), unit.toUpperCase()];
  // A lower-case b typed is a bit in most writing, a byte in some: offer both (a B typed is a byte).
  const candidates = forms.flatMap((form) => (unit.endsWith('b') && /b$/i.test(form) ? [form, `${form.slice(0, -1)}B`, `${form.slice(0, -1)}bit`] : [form]));
  const bareAllowed = !card.prefixed && !NO_BARE_MULTIPLIER.has(card.dimension.split('/')[0]);
  const found = new Map<number, string>();
  for (const candidate of candidates) {
    if (candidate === unit) continue;
    const meaning = perCount(unitMeaning(candidate), card) ?? unitMeaning(candidate);
    const factor = meaning?.dimension === card.dimension ? meaning.factor : bareAllowed ? BARE_MULTIPLIERS.get(candidate) : undefined;
    // One spelling per amount: kB and KB are the same, so only the first is offered.
    if (factor !== undefined && !found.has(factor)) found.set(factor, candidate);
  }
  return found.size === 0 ? '' : ` (did you mean ${[...found.values()].slice(0, 2).join(' or ')}?)`;
}

/**
 * A bare number in (0, 1] on a card in %: likely a fraction (0.7086 meant as 70.86 %), which was
 * graded wrong. Asked again whatever the answer is, so the question hints nothing; typed with
 * its % it is taken as is.
 */
function fractionOnPercentCard(number: number, card: UnitMeaning | null, cardUnit: string | null): TypedAnswer | null {
  if (card?.dimension !== 'percent' || !(number > 0 && number <= 1)) return null;
  const typed = String(number);
  // As the percentage it would be, without floating-point noise: 0.07 is 7, not 7.000000000000001.
  const percent = String(Number((number * 100).toPrecision(12)));
  return { ok: false, message: `answers here are in ${cardUnit}: type ${percent} for ${percent} ${cardUnit}, or ${typed} ${cardUnit} if you mean ${typed} ${cardUnit}` };
}

/**
 * Reads a typed answer as a number in `cardUnit`. `0.5s` on a card in ms is 500; `2.4 GB`
 * on a card in GB is 2.4; a number without a unit is taken in the card's unit.
 */
export function parseTypedAnswer(input: string, cardUnit: string | null): TypedAnswer {
  // NFKC folds what a Chinese or Japanese input method types into ASCII: full-width digits,
  // point, comma, signs, letters, % and the ideographic space ("２５ｍｓ" is 25ms). They were
  // "not a number", so a learner with such an input method on could not answer at all.
  // In its Chinese punctuation mode an input method types the full stop 。 for the point key:
  // "45。71" was "not a unit kb knows" ("。71"). Between two digits it can only be the point.
  // A leading ~ or ≈ (~3.4 ms) says the learner estimated: the number is read as typed.
  const text = input.normalize('NFKC').replace(/(?<=\d)\u3002(?=\d)/g, '.').trim().replace(/^[~\u2248]\s*/, '');
  if (text === '') return { ok: false, message: 'type a number, e.g. 20 or 20 ms' };
  const match = NUMBER.exec(text);
  if (!match) return { ok: false, message: `"${text}" is not a number` };
  let rest = text.slice(match[0].length).trim();
  if (/^,\d/.test(rest) || /^\d/.test(rest)) {
    return { ok: false, message: 'write decimals with a dot (0.5) and commas only between groups of three digits (1,024)' };
  }
  // A minus sign (ASCII or Unicode) makes it negative; a plus sign is only a sign ("+20" is 20).
  let number = Number(`${match[1] === '-' || match[1] === '\u2212' ? '-' : ''}${match[2].replace(/[,_]/g, '')}${match[3] === undefined ? '' : `e${match[3]}`}`);
  if (!Number.isFinite(number)) return { ok: false, message: 'that number is too large' };
  const card = cardUnit === null || cardUnit.trim() === '' ? null : meaningOf(cardUnit);
  // A multiplier with no unit after it (1.5k, 70亿) on a card in k tokens or in ms: of what?
  const ambiguous = (typed: string) =>
    card?.prefixed || (card && NO_BARE_MULTIPLIER.has(card.dimension.split('/')[0])) ? { ok: false as const, message: `"${typed}" alone is ambiguous here: write the unit, e.g. ${match[0]} ${cardUnit}` } : null;
  const numeral = CHINESE_NUMERALS.find(([name]) => rest.startsWith(name));
  if (numeral) {
    number *= numeral[1];
    rest = rest.slice(numeral[0].length).trim();
    if (rest === '') return ambiguous(numeral[0]) ?? { ok: true, value: number };
  }
  if (rest === '') return fractionOnPercentCard(number, card, cardUnit) ?? { ok: true, value: number };

  const unit = normalizeUnit(rest);
  const multiplier = BARE_MULTIPLIERS.get(unit);
  if (multiplier !== undefined) return ambiguous(rest) ?? { ok: true, value: number * multiplier };
  if (card === null) {
    // A card without a unit is often a ratio whose worked answer writes "11.67x": x or × after
    // it marks that ratio, not a unit (it was refused as one).
    if (unitMeaning(unit)?.dimension === 'times') return { ok: true, value: number };
    return { ok: false, message: `this answer has no unit: type just the number (not "${rest}")` };
  }
  // A measure word alone on a card that counts (25个 for 25 requests) is that many of them.
  if (CHINESE_CLASSIFIERS.includes(unit) && COUNTED.has(card.dimension)) return { ok: true, value: number / card.factor };
  // "25 per token" (25/token) on a TPOT card in ms: the number in the card's unit, per one token
  // as the question asks it, as "25 ms per token" is.
  const perOne = /^\/(.+)$/.exec(unit);
  if (perOne && !card.dimension.includes('/') && PER_ONE.has(simpleUnit(perOne[1])?.dimension ?? '')) return { ok: true, value: number };
  const typed = perCount(unitMeaning(unit), card) ?? unitMeaning(unit) ?? literalMeaning(unit);
  if (typed.dimension !== card.dimension) {
    const known = unitMeaning(unit) !== null;
    const what = describe(card);
    return {
      ok: false,
      message: known
        ? `"${rest}" does not convert to ${cardUnit}: answer in ${cardUnit}${what ? ` (${what})` : ''}`
        : `"${rest}" is not a unit kb knows here${hint(unit, card)}: answer in ${cardUnit}, or type just the number`,
    };
  }
  // Divide the factors first: 1 / 0.001 is exactly 1000, so 0.5 s is exactly 500 ms.
  return { ok: true, value: number * (typed.factor / card.factor) };
}

/**
 * A time limit as written on the command line, in milliseconds: 45s, 90 (seconds), 2m,
 * 1m30s, 1.5 min, 500ms. Null when it is not a positive duration.
 */
export function parseDuration(text: string): number | null {
  const trimmed = text.trim();
  // "m" alone means minutes here (an answer never reads it: it could be metres or milli-).
  const minutes = /^(\d+(?:\.\d+)?)\s*m(?:\s*(\d+(?:\.\d+)?)\s*s)?$/.exec(trimmed);
  const seconds = minutes
    ? Number(minutes[1]) * 60 + (minutes[2] === undefined ? 0 : Number(minutes[2]))
    : (() => {
        const parsed = parseTypedAnswer(trimmed, 's');
        return parsed.ok ? parsed.value : NaN;
      })();
  return Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : null;
}
