// Byte-exact frontmatter edits: replace the values of some top-level keys, append missing
// keys, and leave every other byte as it was (key order, quoting, comments, line endings,
// BOM, body). The result is re-read and checked before it is returned.
import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, parseDocument, Scalar, type Node, type Pair } from 'yaml';
import { fileShapeProblem } from './file-shape.ts';
import { isValidDate } from './frontmatter-fields.ts';
import { readFlatYaml } from './flat-yaml.ts';
import { detectEol, isYamlLanguage, locateFrontmatter } from './frontmatter.ts';
import { parseYaml } from './yaml-safe.ts';

export type FrontmatterValue = string | number | null;

export class FrontmatterEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrontmatterEditError';
  }
}

const KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Sets top-level frontmatter keys. Existing values are replaced where they stand (a quoted
 * string stays quoted the same way, a date keeps the file's quoting of dates, a trailing
 * comment stays); missing keys are appended at
 * the end of the block with the file's line ending; a text without frontmatter gets a block.
 * Throws FrontmatterEditError when the frontmatter cannot be edited safely.
 */
export function updateFrontmatterFields(text: string, fields: Record<string, FrontmatterValue>): string {
  const entries = Object.entries(fields);
  for (const [key, value] of entries) {
    if (!KEY_PATTERN.test(key)) throw new FrontmatterEditError(`cannot write frontmatter key "${key}"`);
    if (typeof value === 'number' && !Number.isFinite(value)) throw new FrontmatterEditError(`${key}: cannot write ${value}`);
  }
  const block = locateFrontmatter(text);
  let result: string;
  let before: Record<string, unknown> | null = null;
  if (!block) {
    if (entries.length === 0) return text;
    // A file kb cannot read safely (a frontmatter never closed, lone-CR line endings, an emptied
    // file) gets no block put on top of it: that would bury its own id and dates.
    const problem = fileShapeProblem('', text);
    if (problem) throw new FrontmatterEditError(problem.message);
    const eol = detectEol(text);
    const at = text.startsWith('\uFEFF') ? 1 : 0;
    const lines = entries.map(([key, value]) => `${key}: ${formatValue(value, null)}${eol}`).join('');
    result = `${text.slice(0, at)}---${eol}${lines}---${eol}${text.slice(at)}`;
  } else {
    if (!isYamlLanguage(block.language)) throw new FrontmatterEditError(`frontmatter in "${block.language}" is not YAML; not edited`);
    const source = text.slice(block.yamlStart, block.yamlEnd);
    // Every field already there as asked, in a block the flat reader understands: the edit
    // below would change no byte (each such value is a plain or quoted scalar on its line, with
    // no anchor, tag or comment, which replaceValue leaves alone when it reads as asked). A
    // clone's first open asks this of every reviewed note, and `yaml`'s parse of each was most
    // of its write-back's time (~2 of 3.3 CPU-s on 5,000 notes).
    if (alreadyHolds(source, entries)) return text;
    const doc = parseYaml(source);
    if (doc.errors.length > 0) throw new FrontmatterEditError(`frontmatter has YAML errors; not edited (${doc.errors[0].message.split('\n')[0]})`);
    if (doc.contents !== null && !isMap(doc.contents)) throw new FrontmatterEditError('frontmatter is not a mapping; not edited');
    const pairs = doc.contents === null ? [] : (doc.contents.items as Pair[]);
    before = readMapping(doc);
    const datesStyle = fileDateStyle(pairs);
    const edits: Edit[] = [];
    const appended: string[] = [];
    for (const [key, value] of entries) {
      const pair = pairs.find((p) => isScalar(p.key) && p.key.value === key);
      if (pair) {
        if (isUnchangedAnchored(pair, value)) continue;
        refuseAnchor(key, pair);
        const edit = replaceValue(source, pair, value, datesStyle);
        if (edit) edits.push(edit);
      } else {
        appended.push(`${key}: ${formatField(value, null, datesStyle)}${block.eol}`);
      }
    }
    let yaml = source;
    for (const edit of edits.sort((a, b) => b.start - a.start)) yaml = yaml.slice(0, edit.start) + edit.text + yaml.slice(edit.end);
    result = text.slice(0, block.yamlStart) + yaml + text.slice(block.yamlEnd, block.close) + appended.join('') + text.slice(block.close);
    // Nothing changed and every field already reads as asked: the check below would parse the
    // same block again to find just that. A clone's first replay asks it of every reviewed note
    // (4,361 on a 5,000-note knowledge base, their fields already right: ~0.6 s of parsing).
    if (result === text && before !== null && entries.every(([key, value]) => Object.hasOwn(before!, key) && (before![key] ?? null) === value)) return text;
  }
  verify(result, fields, before);
  return result;
}

/**
 * Whether a flat block (kb/flat-yaml.ts) already holds every field as asked, with nothing the
 * edit would rewrite: a number or null reading the same, or a date as the same text (written
 * plain, single- or double-quoted, it is written back as it stands). Another string could be
 * quoted anew (`foo: yes` set to "yes" becomes `foo: 'yes'`): left to the full edit.
 */
function alreadyHolds(source: string, entries: [string, FrontmatterValue][]): boolean {
  const flat = readFlatYaml(source);
  if (flat === null) return false;
  return entries.every(([key, value]) => {
    if (!Object.hasOwn(flat.data, key)) return false;
    const held = flat.data[key];
    return typeof value === 'string' ? held === value && isValidDate(value) : held === value;
  });
}

/** An anchored value that already says what kb would write needs no edit, so no refusal. */
function isUnchangedAnchored(pair: Pair, value: FrontmatterValue): boolean {
  const node = pair.value as Node | null;
  return node !== null && isScalar(node) && node.anchor !== undefined && (node.value ?? null) === value;
}

/**
 * A value carrying an anchor (`review_count: &rc 0`) may be what another key's alias (`*rc`)
 * means: rewriting it would change that key too, or leave its alias pointing nowhere. kb
 * leaves such a value to the person who wrote it.
 */
function refuseAnchor(key: string, pair: Pair): void {
  const node = pair.value as Node | null;
  const anchor = node?.anchor ?? (pair.key as Node | null)?.anchor;
  if (anchor) throw new FrontmatterEditError(`${key} carries the YAML anchor &${anchor}, which kb does not rewrite (other keys may refer to it); not edited`);
}

/** A scalar written the simple way (plain or quoted on its line, no anchor or tag): its style is the writer's. */
function simpleScalarStyle(node: Node | null): Scalar.Type | null {
  if (!node || !isScalar(node) || node.anchor || node.tag) return null;
  return node.type === 'PLAIN' || node.type === 'QUOTE_SINGLE' || node.type === 'QUOTE_DOUBLE' ? node.type : null;
}

/** The quoting of the file's first date (`created: 2026-11-01`, `'2026-11-01'` or `"2026-11-01"`); null when it has none. */
function fileDateStyle(pairs: Pair[]): Scalar.Type | null {
  for (const pair of pairs) {
    const node = pair.value as Node | null;
    const style = simpleScalarStyle(node);
    if (style !== null && isScalar(node) && typeof node.value === 'string' && isValidDate(node.value)) return style;
  }
  return null;
}

/**
 * A value in the style of the one it replaces (`oldStyle`, null when there was none). A date
 * is written as the file writes dates, as a careful editor would: the replaced value's quoting
 * when that was a date, else that of the file's other dates (`datesStyle`), else kb's default
 * (single quotes). Unquoted is kept only where kb reads it back as the same text (YAML 1.2's
 * core schema has no timestamps); the file already had YAML 1.1 readers take its dates as such.
 */
function formatField(value: FrontmatterValue, old: Node | null, datesStyle: Scalar.Type | null): string {
  const oldStyle = simpleScalarStyle(old);
  if (typeof value !== 'string' || !isValidDate(value)) return formatValue(value, oldStyle);
  const oldIsDate = old !== null && isScalar(old) && typeof old.value === 'string' && isValidDate(old.value);
  const style = oldIsDate ? oldStyle : datesStyle;
  if (style === Scalar.PLAIN && readsBackPlain(value)) return value;
  return formatValue(value, style === Scalar.PLAIN ? null : style);
}

function replaceValue(source: string, pair: Pair, value: FrontmatterValue, datesStyle: Scalar.Type | null): Edit | null {
  const node = pair.value as Node | null;
  const oldRange = node?.range;
  const simpleScalar = node && isScalar(node) && oldRange && !node.anchor && !node.tag
    && !source.slice(oldRange[0], oldRange[1]).includes('\n')
    && (node.type === 'PLAIN' || node.type === 'QUOTE_SINGLE' || node.type === 'QUOTE_DOUBLE');
  if (simpleScalar && isScalar(node) && oldRange) {
    if (node.value === null && value === null) return null;
    if (node.value === value && typeof value === 'number') return null;
    const replacement = formatField(value, node, datesStyle);
    const [start, end] = oldRange;
    if (start === end) {
      // An empty value: the new one goes right after `key:`, so the spacing before a
      // trailing comment stays as it was.
      let colon = start;
      while (colon > 0 && (source.charAt(colon - 1) === ' ' || source.charAt(colon - 1) === '\t')) colon--;
      const gap = colon === start && end < source.length && !/[\r\n]/.test(source.charAt(end)) ? ' ' : '';
      return { start: colon, end: colon, text: ' ' + replacement + gap };
    }
    return { start, end, text: replacement };
  }
  // A list, a block or multi-line value, or one with an anchor or tag: it is replaced whole,
  // from just after `key:` to its end, keeping the line ending that closed it.
  const keyEnd = (pair.key as Node).range?.[1];
  if (keyEnd === undefined) throw new FrontmatterEditError('cannot locate a frontmatter key');
  const colon = source.indexOf(':', keyEnd);
  const end = oldRange ? oldRange[1] : colon + 1;
  const region = source.slice(colon + 1, end);
  const closing = /(\r?\n)$/.exec(region)?.[1] ?? '';
  return { start: colon + 1, end, text: ` ${formatField(value, null, datesStyle)}${closing}` };
}

/** A YAML scalar for `value`, in the old value's quoting style when that is possible. */
export function formatValue(value: FrontmatterValue, oldStyle: Scalar.Type | null): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return String(value);
  if (oldStyle === Scalar.QUOTE_DOUBLE) return doubleQuoted(value);
  if (oldStyle === Scalar.QUOTE_SINGLE) return canSingleQuote(value) ? singleQuoted(value) : doubleQuoted(value);
  if (isPlainSafe(value)) return value;
  return canSingleQuote(value) ? singleQuoted(value) : doubleQuoted(value);
}

function canSingleQuote(value: string): boolean {
  // Single quotes cannot escape: no line breaks or other control characters inside.
  return !/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/.test(value);
}

function singleQuoted(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

function doubleQuoted(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) as number;
    if (char === '"' || char === '\\') out += '\\' + char;
    else if (char === '\n') out += '\\n';
    else if (char === '\t') out += '\\t';
    else if (char === '\r') out += '\\r';
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || code === 0xfeff || (code >= 0xd800 && code <= 0xdfff)) {
      out += '\\u' + code.toString(16).padStart(4, '0');
    } else out += char;
  }
  return out + '"';
}

/**
 * Plain (unquoted) only when both YAML 1.2 and 1.1 read it back as the same text: so dates
 * (a timestamp in 1.1), `yes`, `123` or `a: b` get quotes, as tools reading notes expect.
 */
function isPlainSafe(value: string): boolean {
  if (value === '' || value.trim() !== value || !canSingleQuote(value)) return false;
  for (const version of ['1.2', '1.1'] as const) {
    const doc = parseDocument(`k: ${value}\n`, { version, schema: version === '1.1' ? 'yaml-1.1' : 'core' });
    if (doc.errors.length > 0 || doc.warnings.length > 0) return false;
    let parsed: Record<string, unknown> | null;
    try {
      parsed = doc.toJS() as Record<string, unknown> | null;
    } catch {
      return false; // alias-like text (`*x`): an unresolved alias, never safe plain
    }
    if (!parsed || parsed.k !== value) return false;
  }
  return true;
}

/** Whether kb (YAML 1.2, core schema) reads `value` unquoted as that very text. */
function readsBackPlain(value: string): boolean {
  if (value.trim() !== value || !canSingleQuote(value)) return false;
  const doc = parseYaml(`k: ${value}\n`);
  if (doc.errors.length > 0 || doc.warnings.length > 0) return false;
  return readMapping(doc)?.k === value;
}

/** A parsed block's mapping as plain data; null when it has none or cannot be read as data. */
function readMapping(doc: ReturnType<typeof parseYaml>): Record<string, unknown> | null {
  try {
    return doc.errors.length === 0 && isMap(doc.contents) ? (doc.toJS() as Record<string, unknown>) : null;
  } catch {
    // toJS throws on an alias left without its anchor (or too many aliases): not a safe edit.
    return null;
  }
}

/**
 * The edited block must read back with each field as written and every other key as it was:
 * a line appended after a block scalar that keeps its trailing lines (`|+`) would lengthen it.
 */
function verify(result: string, fields: Record<string, FrontmatterValue>, before: Record<string, unknown> | null): void {
  const block = locateFrontmatter(result);
  if (!block) throw new FrontmatterEditError('the edited frontmatter could not be found again');
  const data = readMapping(parseYaml(result.slice(block.yamlStart, block.yamlEnd)));
  for (const [key, value] of Object.entries(fields)) {
    if (!data || !Object.hasOwn(data, key) || (data[key] ?? null) !== value) {
      throw new FrontmatterEditError(`could not write ${key} without disturbing the rest of the frontmatter`);
    }
  }
  for (const key of Object.keys(before ?? {})) {
    if (Object.hasOwn(fields, key)) continue;
    if (!data || !isDeepStrictEqual(data[key], before?.[key])) {
      throw new FrontmatterEditError(`could not write ${Object.keys(fields).join(', ')} without changing ${key}`);
    }
  }
}
