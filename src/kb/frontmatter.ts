// Frontmatter: where the block is (byte offsets, for exact edits) and what it says (safely).
//
// The block is found by gray-matter's rules (locateFrontmatter) and read only as YAML, through
// the `yaml` package (core schema, no custom tags); any other language (`---js`, `---coffee`)
// is refused and never evaluated. gray-matter itself is not used: its stock engines run such
// frontmatter through `eval`, and going through it cost a quarter of a cold scan.
import { isCollection, isMap, isPair, isScalar, type Document, type YAMLMap } from 'yaml';
import { stripBom } from './read-file.ts';
import { lineIndex } from './line-index.ts';
import { readFlatYaml } from './flat-yaml.ts';
import { lineAt, parseYaml, yamlProblems } from './yaml-safe.ts';
import type { Diagnostic, KbPath } from '../model/knowledge-base.ts';

const DELIMITER = '---';

/** The frontmatter block of a text, as offsets into that same text (a leading BOM counts). */
export interface FrontmatterBlock {
  /** Offset of the opening `---`. */
  open: number;
  /** What follows the opening `---` on its line (`js`, `yaml`, or empty). */
  language: string;
  /** The YAML source: from the end of the opening `---` line's text to the closing line's line ending. */
  yamlStart: number;
  yamlEnd: number;
  /** Offset of the closing `---` (the start of its line). */
  close: number;
  /** Where the body starts. */
  bodyStart: number;
  /** The text's line ending, taken from the opening line. */
  eol: '\n' | '\r\n';
}

/**
 * Finds the block by gray-matter's own rules (opening `---` on the first line, closing at the
 * first later line that starts with `---`), so the offsets agree with what it parses. A text
 * whose `---` is never closed has no frontmatter (it is a thematic break).
 */
export function locateFrontmatter(text: string): FrontmatterBlock | null {
  const open = text.startsWith('\uFEFF') ? 1 : 0;
  if (!text.startsWith(DELIMITER, open)) return null;
  if (text.charAt(open + DELIMITER.length) === '-') return null;
  const firstNewline = text.indexOf('\n', open);
  if (firstNewline === -1) return null;
  const languageEnd = text.charAt(firstNewline - 1) === '\r' ? firstNewline - 1 : firstNewline;
  // The YAML source starts on the opening line, so YAML line numbers are file line numbers.
  const yamlStart = languageEnd;
  const languageRaw = text.slice(open + DELIMITER.length, languageEnd);
  const closeMarker = text.indexOf('\n' + DELIMITER, languageEnd);
  if (closeMarker === -1) return null;
  const close = closeMarker + 1;
  let bodyStart = close + DELIMITER.length;
  if (text.charAt(bodyStart) === '\r') bodyStart++;
  if (text.charAt(bodyStart) === '\n') bodyStart++;
  return {
    open,
    language: languageRaw.trim(),
    yamlStart,
    // A CRLF file's last YAML line ends in \r\n: the \r belongs to the line ending, not the YAML.
    yamlEnd: text.charAt(closeMarker - 1) === '\r' && closeMarker - 1 >= yamlStart ? closeMarker - 1 : closeMarker,
    close,
    bodyStart,
    eol: text.charAt(firstNewline - 1) === '\r' ? '\r\n' : '\n',
  };
}

/** The line ending a text uses (its first one), `\n` when it has none. */
export function detectEol(text: string): '\n' | '\r\n' {
  const newline = text.indexOf('\n');
  return newline > 0 && text.charAt(newline - 1) === '\r' ? '\r\n' : '\n';
}

export function isYamlLanguage(language: string): boolean {
  return language === '' || language.toLowerCase() === 'yaml' || language.toLowerCase() === 'yml';
}

class RefusedFrontmatterLanguage extends Error {
  constructor(language: string) {
    super(`frontmatter language "${language}" is refused: only YAML frontmatter is read (kb never executes frontmatter)`);
    this.name = 'RefusedFrontmatterLanguage';
  }
}

export interface ParsedFrontmatter {
  /** The top-level mapping (empty when the file has none); null when the block is unusable. */
  data: Record<string, unknown> | null;
  /** 1-based file line of each top-level key. */
  keyLines: Map<string, number>;
  block: FrontmatterBlock | null;
  /** Offset (in the BOM-less text) and 1-based line where the Markdown body starts. */
  bodyStart: number;
  bodyLine: number;
  diagnostics: Diagnostic[];
  /**
   * True when a new last line `key: <plain scalar>` (before the closing `---`) can only add that
   * one key: the block is empty, or holds a block mapping at column 0 whose last value no
   * appended line can extend. Writing a card id then needs no second parse to check it.
   */
  appendsCleanly?: boolean;
}

/**
 * gray-matter's rule for a block with nothing to parse: only blank lines and `#` comment lines.
 * Such a block reads as `{}` without going through YAML (so a stray tab there is no error).
 */
function isEmptyBlock(source: string): boolean {
  return source.replace(/^\s*#[^\n]+/gm, '').trim() === '';
}

/**
 * Reads the frontmatter of a text (a leading BOM is ignored). Errors leave `data` null: the file yields no cards.
 *
 * The block is found by locateFrontmatter and its YAML parsed once, here. A language other
 * than YAML (`---js`, `---coffee`) is refused before anything reads the block.
 */
export function parseFrontmatter(file: KbPath, input: string): ParsedFrontmatter {
  const text = stripBom(input);
  const block = locateFrontmatter(text);
  const diagnostics: Diagnostic[] = [];
  const keyLines = new Map<string, number>();
  if (!block) return { data: {}, keyLines, block: null, bodyStart: 0, bodyLine: 1, diagnostics };
  const bodyStart = block.bodyStart;
  const bodyLine = lineAt(text, bodyStart);
  const failed = (line: number, message: string): ParsedFrontmatter => {
    diagnostics.push({ severity: 'error', file, line, message });
    return { data: null, keyLines, block, bodyStart, bodyLine, diagnostics };
  };
  if (!isYamlLanguage(block.language)) return failed(1, new RefusedFrontmatterLanguage(block.language).message);

  // The YAML source starts on the opening line, so its line numbers are the file's.
  const source = text.slice(block.yamlStart, block.yamlEnd);
  if (isEmptyBlock(source)) return { data: {}, keyLines, block, bodyStart, bodyLine, diagnostics, appendsCleanly: true };
  // Most notes: one key a line, scalars or a list of them. A new last key line can only add a key.
  const flat = readFlatYaml(source);
  if (flat) return { data: flat.data, keyLines: flat.keyLines, block, bodyStart, bodyLine, diagnostics, appendsCleanly: true };
  try {
    const doc = parseYaml(source);
    let yamlFailed = false;
    for (const problem of yamlProblems(doc, source)) {
      diagnostics.push({ severity: problem.severity, file, line: problem.line, message: `frontmatter: ${problem.message}` });
      if (problem.severity === 'error') yamlFailed = true;
    }
    if (yamlFailed) return { data: null, keyLines, block, bodyStart, bodyLine, diagnostics };
    if (doc.contents === null) return { data: {}, keyLines, block, bodyStart, bodyLine, diagnostics };
    if (!isMap(doc.contents)) return failed(lineAt(source, doc.contents.range[0]), 'frontmatter must be a mapping of keys to values');
    collectKeyLines(doc.contents, source, keyLines);
    const data = doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>;
    return { data, keyLines, block, bodyStart, bodyLine, diagnostics, appendsCleanly: appendsCleanly(doc, doc.contents, source) };
  } catch (error) {
    return failed(1, `frontmatter: ${(error as Error).message}`);
  }
}

/**
 * See ParsedFrontmatter.appendsCleanly. A line at column 0 ends whatever the mapping's last
 * value was (a plain or quoted scalar, a flow collection, a nested block), except a block
 * scalar (`|`, `>`), whose kept trailing lines could change: those, an indented or flow
 * mapping, and a document end marker (`...`) are left to the full check.
 */
function appendsCleanly(doc: Document.Parsed, map: YAMLMap, source: string): boolean {
  if (map.flow || doc.warnings.length > 0 || /^\.\.\.[ \t]*$/m.test(source)) return false;
  const first = map.items[0]?.key;
  if (!isScalar(first) || !first.range || (first.range[0] > 0 && source.charAt(first.range[0] - 1) !== '\n')) return false;
  let last: unknown = map;
  while (isCollection(last) && last.items.length > 0) {
    const item: unknown = last.items[last.items.length - 1];
    last = isPair(item) ? item.value : item;
  }
  return !(isScalar(last) && (last.type === 'BLOCK_LITERAL' || last.type === 'BLOCK_FOLDED'));
}

function collectKeyLines(map: YAMLMap, source: string, keyLines: Map<string, number>): void {
  const lineOf = lineIndex(source);
  for (const pair of map.items) {
    if (isScalar(pair.key) && pair.key.range) keyLines.set(String(pair.key.value), lineOf(pair.key.range[0]));
  }
}
