// YAML as kb reads it: the core schema, unique keys, bounded aliases, and no custom tags
// (`!!js/function` and friends are reported as errors, never resolved or run).
import { isMap, isScalar, parseDocument, visit, YAMLParseError, type Document } from 'yaml';
import { lineIndex } from './line-index.ts';

/** 1-based line of an offset; CRLF, LF and a lone CR each end a line (as in Markdown and editors). */
export function lineAt(text: string, offset: number): number {
  return lineIndex(text)(offset);
}

/** Parses YAML the only way kb does: core schema, unique keys, bounded aliases, no custom tags. */
export function parseYaml(source: string): Document.Parsed {
  const doc = parseDocument(source, {
    schema: 'core',
    // yaml's own check compares each key with every earlier one of its map: 100,000 keys took
    // over a minute. duplicateKeyErrors does the same check with a set, in linear time.
    uniqueKeys: false,
    prettyErrors: false,
    strict: true,
    // Problems come back in doc.errors and doc.warnings, which kb reports with file and line;
    // at yaml's default level they also went to process.emitWarning ("(node:13149) Warning: Keys
    // with collection values will be stringified", for an Obsidian template's `{{date}}`).
    logLevel: 'error',
  });
  doc.errors.push(...duplicateKeyErrors(doc));
  return doc;
}

/** yaml's DUPLICATE_KEY errors (same message, at the repeated key), found in one pass over each map. */
function duplicateKeyErrors(doc: Document.Parsed): YAMLParseError[] {
  const errors: YAMLParseError[] = [];
  visit(doc, {
    Map(_, map) {
      if (!isMap(map)) return;
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        // As yaml compares keys: scalars by value (NaN never equals itself), other nodes by identity.
        const value = isScalar(pair.key) ? pair.key.value : pair.key;
        if (Number.isNaN(value)) continue;
        if (seen.has(value)) {
          const at = isScalar(pair.key) && pair.key.range ? pair.key.range[0] : (map.range?.[0] ?? 0);
          errors.push(new YAMLParseError([at, at + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
        }
        seen.add(value);
      }
    },
  });
  return errors.sort((a, b) => a.pos[0] - b.pos[0]);
}

/** Problems of a YAML document; unresolved (custom) tags are errors, never resolved or run. */
export function yamlProblems(doc: Document.Parsed, source: string): Array<{ line: number; message: string; severity: 'error' | 'warning' }> {
  const problems: Array<{ line: number; message: string; severity: 'error' | 'warning' }> = [];
  const lineOf = lineIndex(source);
  for (const error of doc.errors) {
    problems.push({ line: error.linePos?.[0].line ?? lineOf(error.pos[0]), message: firstLine(error.message), severity: 'error' });
  }
  for (const warning of doc.warnings) {
    const isTag = warning.code === 'TAG_RESOLVE_FAILED';
    problems.push({
      line: warning.linePos?.[0].line ?? lineOf(warning.pos[0]),
      message: isTag ? `${firstLine(warning.message)} (custom YAML tags are not supported and never executed)` : firstLine(warning.message),
      severity: isTag ? 'error' : 'warning',
    });
  }
  return problems;
}

function firstLine(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

