// The frontmatter most notes have, read without the YAML library: one `key: value` a line,
// values that are quoted strings, plain words, numbers, true/false/null, a list of such scalars
// on the line (`[]`, `tags: [a, b]`), or a block list of them under its key. A cold scan of 10,000 notes spent ~2 s of its ~4.9 s of CPU
// in `yaml` (lexer, parser, composer and toJS for ~12 lines each); this reads the same notes in
// a fraction of that. It is deliberately narrow: any line it does not fully understand (a
// nested map, a flow map, an anchor, a tag, a comment after a value, a colon or `#` in a plain
// word, a number in another notation, a duplicate key, ...) returns null and the caller parses
// with `yaml` as before. What it does accept, it reads exactly as `yaml`'s core schema does
// (test/kb/flat-yaml.test.ts compares the two on generated frontmatter).

export interface FlatYaml {
  data: Record<string, unknown>;
  /** 1-based line of each key, counted from the source's first line. */
  keyLines: Map<string, number>;
}

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
const ITEM_LINE = /^( {0,2})- +(.*)$/;
const COMMENT_OR_BLANK = /^(?:#.*)?$/;

/**
 * Plain words: no character YAML treats specially anywhere in a plain scalar, no leading or
 * trailing space. A word may start with `.` or `/` (a relative or absolute link, as
 * `related_outlines` lists them: `- ../metrics/ttft.md`), neither special at the start of a plain
 * scalar; `.5`, `.inf` and `.nan` are numbers, which CORE_NUMBER hands to `yaml` first.
 */
const PLAIN = /^[./A-Za-z0-9\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd][^\t:#[\]{},&*!|>%@`\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]*$/;
const INT = /^-?(?:0|[1-9][0-9]{0,14})$/;
const FLOAT = /^-?(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;
/** Everything the core schema reads as a number (or infinity, NaN): what INT and FLOAT leave out is given to `yaml`. */
const CORE_NUMBER = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const OTHER_CORE_WORDS = new Set(['Null', 'NULL', 'True', 'TRUE', 'False', 'FALSE']);
/** Keys the core schema would read as null or a boolean, and the one a plain object cannot hold. */
const SPECIAL_KEYS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', '__proto__']);

const NOT_FLAT = Symbol('not flat');

const withoutCr = (line: string): string => (line.endsWith('\r') ? line.slice(0, -1) : line);

/** One scalar as the core schema reads it, or NOT_FLAT. */
function scalar(text: string): unknown {
  if (text === '' || text === '~' || text === 'null') return null;
  if (text === 'true') return true;
  if (text === 'false') return false;
  const quote = text[0];
  if (quote === "'" || quote === '"') {
    const inner = text.slice(1, -1);
    const closed = text.length >= 2 && text.endsWith(quote) && !inner.includes(quote);
    // Double quotes would take escapes; neither kind may hold a control character here.
    return closed && !(quote === '"' && inner.includes('\\')) && !/[\u0000-\u001f\u007f\u2028\u2029]/.test(inner) ? inner : NOT_FLAT;
  }
  if (INT.test(text) || FLOAT.test(text)) return Number(text);
  if (CORE_NUMBER.test(text) || OTHER_CORE_WORDS.has(text) || !PLAIN.test(text) || text.endsWith(' ')) return NOT_FLAT;
  return text;
}

/**
 * A list on one line (`[a, 'b c', 1]`), its items read as scalars, or NOT_FLAT. A plain word
 * here may not hold `,` `[` `]` `{` `}` (YAML's flow indicators), which no plain word holds; a
 * quoted one holding a comma is split apart, which leaves a quote unclosed: NOT_FLAT. So do an
 * empty item and a trailing comma, left to `yaml`. Obsidian writes tags this way.
 */
function flowList(text: string): unknown[] | typeof NOT_FLAT {
  if (!text.endsWith(']')) return NOT_FLAT;
  const inner = text.slice(1, -1);
  if (inner.trim() === '') return [];
  const items: unknown[] = [];
  for (const item of inner.split(',')) {
    const value = item.trim() === '' ? NOT_FLAT : scalar(item.trim());
    if (value === NOT_FLAT) return NOT_FLAT;
    items.push(value);
  }
  return items;
}

/** The source read as a flat mapping, or null when `yaml` must read it. */
export function readFlatYaml(source: string): FlatYaml | null {
  const lines = source.split('\n');
  const data: Record<string, unknown> = {};
  const keyLines = new Map<string, number>();
  let list: unknown[] | null = null; // the block list being read, under the last key
  let listIndent = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = withoutCr(lines[i]);
    if (line.endsWith(' ') || line.includes('\t')) return null;
    if (COMMENT_OR_BLANK.test(line)) continue;
    const item = ITEM_LINE.exec(line);
    if (item) {
      if (list === null || (listIndent >= 0 && item[1].length !== listIndent)) return null;
      listIndent = item[1].length;
      const value = scalar(item[2]);
      if (value === NOT_FLAT || item[2].startsWith('- ') || item[2] === '-') return null;
      list.push(value);
      continue;
    }
    const pair = KEY_LINE.exec(line);
    if (!pair) return null;
    const [, key, text = ''] = pair;
    if (Object.hasOwn(data, key) || SPECIAL_KEYS.has(key)) return null;
    list = null;
    listIndent = -1;
    if (text === '') {
      // A key alone: null, unless a block list follows it (past comments and blank lines only,
      // so a run of keys without values is still read in one pass).
      let next = i + 1;
      while (next < lines.length && COMMENT_OR_BLANK.test(withoutCr(lines[next]))) next++;
      if (next < lines.length && ITEM_LINE.test(withoutCr(lines[next]))) {
        list = [];
        data[key] = list;
      } else {
        data[key] = null;
      }
    } else if (text.startsWith('[')) {
      const items = flowList(text);
      if (items === NOT_FLAT) return null;
      data[key] = items;
    } else {
      const value = scalar(text);
      if (value === NOT_FLAT) return null;
      data[key] = value;
    }
    keyLines.set(key, i + 1);
  }
  return keyLines.size > 0 ? { data, keyLines } : null;
}
